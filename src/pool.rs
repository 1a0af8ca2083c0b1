//! The one thread pool: scoped threads, each taking the next task's index from a shared counter
//! as it finishes one, so that threads stay busy to the end whatever the tasks' sizes.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Each worker's stack: the 8 MiB a program's main thread has, not the 2 MiB Rust gives the
/// threads it starts, which an unoptimised (debug) build's frames of the walk overflowed at
/// depth 3. Reserved, not committed: an optimised build's workers touch a few pages of it.
const WORKER_STACK: usize = 8 << 20;

/// Runs `task(i)` for every `i` in `0..count` on `threads` threads (at least one, at most one
/// per task). A task that returns `Break` stops every thread from taking another task. Returns
/// the results of the tasks that returned `Continue`, with their index, in no set order. A
/// task's panic is passed on to the caller once every thread has stopped.
pub fn run<T: Send>(
    count: usize,
    threads: usize,
    task: impl Fn(usize) -> ControlFlow<(), T> + Sync,
) -> Vec<(usize, T)> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let worker = || {
        let mut done = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                break;
            }
            match task(i) {
                ControlFlow::Continue(t) => done.push((i, t)),
                ControlFlow::Break(()) => stop.store(true, Ordering::Relaxed),
            }
        }
        done
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, count.max(1)))
            .map(|_| {
                // As `scope.spawn`, which also panics if the system refuses a thread.
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, worker)
                    .expect("the system starts a worker thread")
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::run;
    use std::ops::ControlFlow;

    #[test]
    fn every_task_runs_once_whatever_the_thread_count() {
        for threads in [0, 1, 2, 7, 100] {
            let mut done = run(50, threads, |i| ControlFlow::Continue(i * i));
            done.sort();
            let want: Vec<(usize, usize)> = (0..50).map(|i| (i, i * i)).collect();
            assert_eq!(done, want, "{threads} threads");
        }
        assert!(run(0, 4, ControlFlow::Continue::<(), usize>).is_empty());
    }

    #[test]
    fn a_break_stops_the_threads_taking_more() {
        let done = run(1000, 1, |i| {
            if i == 10 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(i)
            }
        });
        assert_eq!(done.len(), 10);
    }
}
