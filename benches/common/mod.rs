//! Helpers shared by the bench binaries: random-game policy, games set up
//! through the public API, statistics and child processes.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{PlayerSetup, Setup};
use stationmaster::linie1;
use stationmaster::rocket::Order;

/// A Rocket setup of `players` players called p0, p1, … with addresses
/// `{prefix}p0@example.test`, …
pub fn setup(players: usize, seed: u64, prefix: &str) -> Setup {
    setup_of("rocket", players, seed, prefix)
}

/// A setup of game `kind` (`rocket`, `linie1`) with its default options,
/// players as in [`setup`].
pub fn setup_of(kind: &str, players: usize, seed: u64, prefix: &str) -> Setup {
    Setup {
        kind: kind.into(),
        players: (0..players)
            .map(|i| PlayerSetup {
                name: format!("p{i}"),
                email: format!("{prefix}p{i}@example.test"),
            })
            .collect(),
        options: Vec::new(),
        seed,
    }
}

/// The policy of `tests/all/rocket_playouts.rs`: an order kind first
/// (extensions twice as likely, so games end by track and shares), then an
/// order of that kind. Returns the index into `legal`.
pub fn pick(rng: &mut SplitMix64, legal: &[Order]) -> usize {
    let kind = |o: &Order| match o {
        Order::Extend { .. } => 0u8,
        Order::Token { .. } => 1,
        Order::Station { from: None, .. } => 2,
        Order::Station { from: Some(_), .. } => 3,
        Order::Veto => 4,
        Order::NoVeto => 5,
        Order::Bid { .. } => 6,
        Order::Pass => 7,
        // System orders (a deadline's skip) are never listed as legal.
        #[allow(unreachable_patterns)]
        _ => 8,
    };
    // How many of each kind, in one pass over the list.
    let mut counts = [0usize; 9];
    for o in legal {
        counts[usize::from(kind(o))] += 1;
    }
    let mut weighted = [0u8; 11];
    let mut n = 0;
    for (k, c) in counts.iter().enumerate() {
        if *c > 0 {
            weighted[n] = k as u8;
            n += 1;
        }
    }
    if counts[0] > 0 {
        weighted[n] = 0;
        weighted[n + 1] = 0;
        n += 2;
    }
    let k = weighted[rng.below(n)];
    let nth = rng.below(counts[usize::from(k)]);
    legal
        .iter()
        .enumerate()
        .filter(|(_, o)| kind(o) == k)
        .nth(nth)
        .map(|(i, _)| i)
        .expect("an order of the kind")
}

/// The policy of `tests/all/linie1_playouts.rs`: a trip is started whenever
/// one can be (so games also end by winning), else an order form first
/// (lay, exchange of one tile, of two, draw, move), then an order of that
/// form. Returns the index into `legal`. (The same draws as the test's,
/// without its vectors.)
pub fn pick_linie1(rng: &mut SplitMix64, legal: &[linie1::Order]) -> usize {
    use linie1::Order as O;
    if let Some(i) = legal.iter().position(|o| matches!(o, O::Start { .. })) {
        return i;
    }
    let kind = |o: &O| match o {
        O::Lay { .. } => 0usize,
        O::Exchange { swaps } if swaps.len() == 1 => 1,
        O::Exchange { .. } => 2,
        O::Draw { .. } => 3,
        O::Move { .. } => 4,
        _ => 5,
    };
    let mut count = [0usize; 6];
    for o in legal {
        count[kind(o)] += 1;
    }
    let kinds = count.iter().filter(|c| **c > 0).count();
    let k = (0..6)
        .filter(|k| count[*k] > 0)
        .nth(rng.below(kinds))
        .expect("a kind");
    let nth = rng.below(count[k]);
    legal
        .iter()
        .enumerate()
        .filter(|(_, o)| kind(o) == k)
        .nth(nth)
        .map(|(i, _)| i)
        .expect("an order of the kind")
}

/// Sorted copy's median.
pub fn median(v: &[Duration]) -> Duration {
    let mut s = v.to_vec();
    s.sort();
    s[s.len() / 2]
}

/// The `p` quantile (0 to 1) of `v`.
pub fn quantile(v: &[Duration], p: f64) -> Duration {
    let mut s = v.to_vec();
    s.sort();
    s[((s.len() - 1) as f64 * p).round() as usize]
}

/// CPU time of the calling thread so far, to the nanosecond (Linux's
/// `/proc/thread-self/schedstat`): the thread that does the work
/// timed. (The process's figure, in `/proc/self/stat`, counts 10 ms ticks,
/// too coarse for one mail or one picture.)
pub fn thread_cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Microseconds.
pub fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A child run: its wall time, exit status, output and peak resident memory.
pub struct ChildRun {
    /// From spawn to exit.
    pub wall: Duration,
    /// Peak resident set size in KiB (the kernel's VmHWM / ru_maxrss).
    pub peak_kib: u64,
    /// How the peak was read.
    pub method: &'static str,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs `program args` and measures its peak resident memory: under
/// `/usr/bin/time -v` if present (GNU time reports the kernel's
/// `ru_maxrss`), else by reading `VmHWM` from `/proc/PID/status` every
/// millisecond until it exits (the last reading before exit).
pub fn run_measured(program: &Path, args: &[&str], cwd: &Path) -> ChildRun {
    let gnu_time = Path::new("/usr/bin/time");
    if gnu_time.exists() {
        let start = Instant::now();
        let out = Command::new(gnu_time)
            .arg("-v")
            .arg(program)
            .args(args)
            .current_dir(cwd)
            .env("RUST_LOG", "stationmaster=warn")
            .output()
            .expect("/usr/bin/time runs");
        let wall = start.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if let Some(kib) = stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse().ok())
        {
            assert!(
                out.status.success(),
                "{} failed: {stderr}",
                program.display()
            );
            return ChildRun {
                wall,
                peak_kib: kib,
                method: "/usr/bin/time -v (ru_maxrss)",
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr,
            };
        }
    }
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("RUST_LOG", "stationmaster=warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_path)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kib);
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let wall = start.elapsed();
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{} failed: {stderr}",
        program.display()
    );
    ChildRun {
        wall,
        peak_kib: peak,
        method: "VmHWM from /proc/PID/status, read every 1 ms",
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    }
}

/// CPU time used so far: by this process (all its threads), and by the
/// whole machine (every core, every process), from `/proc` (Linux; zero
/// elsewhere). Clock ticks are taken as 1/100 s, Linux's USER_HZ.
pub fn cpu_times() -> (Duration, Duration) {
    let tick = |n: u64| Duration::from_millis(n * 10);
    let own = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name (in parentheses): utime is the
            // 12th and stime the 13th of those.
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0);
    let machine = std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| {
            let line = s.lines().next()?;
            // cpu user nice system idle iowait irq softirq steal …: busy is
            // all but idle and iowait.
            let f: Vec<u64> = line
                .split_whitespace()
                .skip(1)
                .filter_map(|x| x.parse().ok())
                .collect();
            Some(
                f.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != 3 && *i != 4)
                    .take(8)
                    .map(|(_, v)| v)
                    .sum(),
            )
        })
        .unwrap_or(0);
    (tick(own), tick(machine))
}

/// CPU time so far of every process and kernel thread, by process id:
/// (name, ticks). The name is the command with any `/…` cut off, so all
/// `kworker/…` threads count as one. From `/proc` (empty elsewhere).
pub fn cpu_by_process() -> std::collections::HashMap<u32, (String, u64)> {
    let mut out = std::collections::HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close]
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let ticks = f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
            + f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        out.insert(pid, (name, ticks));
    }
    out
}

/// The CPU each kind of process used between two [`cpu_by_process`]
/// readings, largest first, as `name 1.23 s` (processes that started in
/// between count whole; those that ended are missed).
pub fn cpu_split(
    before: &std::collections::HashMap<u32, (String, u64)>,
    after: &std::collections::HashMap<u32, (String, u64)>,
    top: usize,
) -> String {
    let mut by_name: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for (pid, (name, ticks)) in after {
        let was = before
            .get(pid)
            .filter(|(n, _)| n == name)
            .map_or(0, |(_, t)| *t);
        *by_name.entry(name.as_str()).or_default() += ticks.saturating_sub(was);
    }
    let mut v: Vec<(&str, u64)> = by_name.into_iter().filter(|(_, t)| *t > 0).collect();
    v.sort_by_key(|(_, t)| std::cmp::Reverse(*t));
    v.iter()
        .take(top)
        .map(|(n, t)| format!("{n} {:.2} s", *t as f64 / 100.0))
        .collect::<Vec<_>>()
        .join(", ")
}
