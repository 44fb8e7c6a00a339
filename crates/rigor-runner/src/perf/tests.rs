use super::*;

#[test]
fn counters_are_named_as_their_metrics() {
    for c in Counter::ALL {
        assert_eq!(c.name().parse::<Counter>(), Ok(c));
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            format!("\"{}\"", c.name())
        );
    }
    assert_eq!(
        Counter::for_metric(&rigor_units::Metric::Instructions),
        Some(Counter::Instructions)
    );
    assert_eq!(
        Counter::for_metric(&"cycles".parse().unwrap()),
        Some(Counter::Cycles)
    );
    assert_eq!(Counter::for_metric(&rigor_units::Metric::Cpu), None);
    assert!("branches".parse::<Counter>().is_err());
}

#[test]
fn a_partial_count_is_refused_not_scaled() {
    let whole = metrics([(Counter::Instructions, [1000, 50, 50])]).unwrap();
    assert_eq!(whole["instructions"].values, vec![1000.0]);
    assert_eq!(whole["instructions"].unit, Quantity::Count);
    let clock = metrics([(Counter::TaskClock, [2_000_000, 9, 9])]).unwrap();
    assert_eq!(clock["task-clock"].values, vec![0.002]);
    assert_eq!(clock["task-clock"].unit, Quantity::Time);
    let err = metrics([(Counter::Cycles, [1000, 100, 25])]).unwrap_err();
    assert_eq!(
        err,
        CounterError::Multiplexed {
            counter: Counter::Cycles,
            enabled: 100,
            running: 25
        }
    );
    assert!(err.to_string().contains("for only 25.0% of the execution"));
    assert!(err.to_string().contains("does not scale"));
    // Never enabled: refused too, not a zero.
    assert_eq!(
        metrics([(Counter::Instructions, [0, 0, 0])]),
        Err(CounterError::NotCounted {
            counter: Counter::Instructions
        })
    );
}

#[test]
fn errors_name_the_reason() {
    let none = CounterError::open_failed(Counter::Instructions, libc::ENOENT);
    assert_eq!(
        none.to_string(),
        format!(
            "cannot count instructions: this machine's kernel exposes no hardware performance counters (common in virtual machines; perf_event_open: {})",
            std::io::Error::from_raw_os_error(libc::ENOENT)
        )
    );
    assert!(matches!(
        CounterError::open_failed(Counter::Cycles, libc::EOPNOTSUPP),
        CounterError::NoCounter { .. }
    ));
    let refused = CounterError::Refused {
        counter: Counter::Cycles,
        errno: libc::EACCES,
        paranoid: Some(3),
    };
    let text = refused.to_string();
    assert!(
        text.contains("/proc/sys/kernel/perf_event_paranoid is 3")
            && text.contains("sysctl kernel.perf_event_paranoid=2"),
        "{text}"
    );
    assert!(matches!(
        CounterError::open_failed(Counter::Cycles, libc::EPERM),
        CounterError::Refused { .. }
    ));
    let other = CounterError::open_failed(Counter::TaskClock, libc::EMFILE);
    assert!(
        other
            .to_string()
            .starts_with("cannot count task-clock: perf_event_open: "),
        "{other}"
    );
    assert_eq!(other.counter(), Counter::TaskClock);
}

/// The software task clock exists on every Linux kernel with perf events, virtual machines
/// included.
#[cfg(target_os = "linux")]
#[test]
fn the_software_counter_can_be_opened() {
    probe(Counter::TaskClock).unwrap();
}

/// Hardware counters either open (a machine with a PMU that lets rigor count) or fail with the
/// reason; this workplace's virtual machines have none.
#[cfg(target_os = "linux")]
#[test]
fn hardware_counters_open_or_say_why() {
    for counter in [Counter::Instructions, Counter::Cycles] {
        match probe(counter) {
            Ok(()) => {}
            Err(CounterError::NoCounter { counter: c, .. }) => {
                assert_eq!(c, counter);
                assert!(
                    !std::path::Path::new("/sys/bus/event_source/devices/cpu").exists(),
                    "a cpu PMU exists, yet {counter} cannot be opened"
                );
            }
            Err(e @ CounterError::Refused { .. }) => {
                assert!(e.to_string().contains(PARANOID_PATH), "{e}");
            }
            Err(e) => panic!("{counter}: unexpected error: {e}"),
        }
    }
}

#[cfg(not(target_os = "linux"))]
#[test]
fn elsewhere_counters_are_unsupported() {
    let err = probe(Counter::TaskClock).unwrap_err();
    assert!(
        err.to_string().contains("not supported on this OS"),
        "{err}"
    );
}
