//! Where the benchmark's processes run: the mock on a CPU of its own and the clients on the
//! others, so the server's work never lands on the client's CPUs (and its scheduling noise
//! never counts as client CPU time). `--no-pin` runs everything wherever the system puts it.

use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

use crate::BenchError;

/// The CPUs each side runs on, as `taskset`-style lists (`0`, `0,2-3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The mock's CPUs.
    pub mock: String,
    /// The client processes' CPUs.
    pub clients: String,
    /// Whether the mock polls on its CPU rather than sleeping when idle.
    pub mock_spins: bool,
}

/// The CPUs this process may run on.
///
/// # Errors
/// When the affinity cannot be read.
pub fn allowed() -> Result<Vec<usize>, BenchError> {
    let set = sched_getaffinity(Pid::from_raw(0)).map_err(std::io::Error::from)?;
    Ok((0..CpuSet::count()).filter(|&cpu| set.is_set(cpu).unwrap_or(false)).collect())
}

/// The mock on the last allowed CPU, polling, and the clients on the rest; `None` with fewer
/// than two.
#[must_use]
pub fn split(allowed: &[usize]) -> Option<Placement> {
    let (&mock, clients) = allowed.split_last()?;
    if clients.is_empty() {
        return None;
    }
    Some(Placement { mock: mock.to_string(), clients: list(clients), mock_spins: true })
}

fn list(cpus: &[usize]) -> String {
    cpus.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

/// Restricts this process (every thread it starts from now on) to the CPUs of `list`.
///
/// # Errors
/// When the list does not parse or the affinity cannot be set.
pub fn pin(list: &str) -> Result<(), BenchError> {
    let mut set = CpuSet::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        let parse = |s: &str| {
            s.trim().parse::<usize>().map_err(|_| BenchError::Protocol(format!("bad CPU list {list:?}")))
        };
        for cpu in parse(from)?..=parse(to)? {
            set.set(cpu).map_err(std::io::Error::from)?;
        }
    }
    sched_setaffinity(Pid::from_raw(0), &set).map_err(std::io::Error::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mock_takes_the_last_cpu_and_the_clients_the_rest() {
        assert_eq!(
            split(&[0, 1]),
            Some(Placement { mock: "1".into(), clients: "0".into(), mock_spins: true })
        );
        assert_eq!(
            split(&[0, 2, 5]),
            Some(Placement { mock: "5".into(), clients: "0,2".into(), mock_spins: true })
        );
        assert_eq!(split(&[3]), None);
        assert_eq!(split(&[]), None);
    }

    #[test]
    fn pinning_to_the_allowed_cpus_keeps_them_allowed() {
        let cpus = allowed().unwrap();
        pin(&list(&cpus)).unwrap();
        assert_eq!(allowed().unwrap(), cpus);
        assert!(pin("not-a-cpu").is_err());
    }
}
