//! Per-file work of one command shared out over the machine's cores: preparing a plan of
//! many files is mostly parsing for the gate, and each file is independent.

/// `work` on every group, results in the groups' order. Many files are shared out over the
/// machine's cores, one file at a time (most of preparing is parsing for the gate); a few
/// stay on the calling thread.
pub fn each<G: Sync, T: Send>(groups: &[G], work: impl Fn(&G) -> T + Sync) -> Vec<T> {
    const PER_THREAD: usize = 8;
    // Asking for the cores reads the cgroup's files: not on the path of a few files.
    if groups.len() < 2 * PER_THREAD {
        return groups.iter().map(work).collect();
    }
    let threads = groups.len().div_ceil(PER_THREAD).min(cores());
    if threads <= 1 {
        return groups.iter().map(work).collect();
    }
    crate::alloc::return_freed_parser_pages_at_once();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let pull = || {
            let mut mine = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(g) = groups.get(i) else {
                    crate::alloc::release_thread_parser_memory();
                    return mine;
                };
                mine.push((i, work(g)));
            }
        };
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(pull)).collect();
        let joined = handles.into_iter().map(|h| h.join());
        joined
            .flat_map(|r| r.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// The machine's cores (as the process may use them), asked once: asking reads the cgroup's
/// files.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::each;

    #[test]
    fn results_come_back_in_the_groups_order() {
        for n in [0, 3, 15, 16, 200] {
            let groups: Vec<usize> = (0..n).collect();
            let squares = each(&groups, |g| g * g);
            assert_eq!(squares, groups.iter().map(|g| g * g).collect::<Vec<_>>());
        }
    }

    #[test]
    #[should_panic(expected = "group 100")]
    fn a_workers_panic_reaches_the_caller() {
        let groups: Vec<usize> = (0..200).collect();
        each(&groups, |&g| assert!(g != 100, "group {g}"));
    }
}
