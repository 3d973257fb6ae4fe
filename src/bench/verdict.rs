//! The verdict rule for one configuration: where the training loop's time
//! goes (docs/engine.md, "What is measured"). A pure function of three measured figures.

use serde::{Deserialize, Serialize};

/// Where the loop's time goes, by a documented rule (docs/engine.md, "What is measured").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum PipelineVerdict {
    /// The loop mostly waits for data.
    ProducerBound,
    /// The loop mostly computes; data arrives in time.
    ConsumerBound,
    /// The consumer waits for a CPU for a material share of its work:
    /// producers and consumer compete, and waiting moved into the step.
    Contended,
}

/// Share of the step the consumer may wait on a run queue before the row is
/// `contended`.
pub const CONTENDED_SHARE: f64 = 0.10;
/// Share of the step spent waiting for data above which a row is
/// `producer-bound`.
pub const PRODUCER_BOUND_WAIT_FRAC: f64 = 0.10;

/// Applies the verdict rule.
pub fn verdict(wait_frac: f64, run_delay_ms: f64, work_ms: f64) -> PipelineVerdict {
    if work_ms > 0.0 && run_delay_ms >= CONTENDED_SHARE * work_ms {
        PipelineVerdict::Contended
    } else if wait_frac >= PRODUCER_BOUND_WAIT_FRAC {
        PipelineVerdict::ProducerBound
    } else {
        PipelineVerdict::ConsumerBound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_rule_names_where_the_loop_waits() {
        // The chapter's rows: inline sleep waits for data...
        assert_eq!(verdict(0.90, 0.0, 7.5), PipelineVerdict::ProducerBound);
        // ...eight sleeping workers keep up with the consumer...
        assert_eq!(
            verdict(0.09 * 0.5, 0.2, 9.6),
            PipelineVerdict::ConsumerBound
        );
        // ...and eight spinning workers steal the consumer's CPU.
        assert_eq!(verdict(0.39, 30.0, 43.2), PipelineVerdict::Contended);
        // The thresholds themselves.
        assert_eq!(verdict(0.10, 0.0, 8.0), PipelineVerdict::ProducerBound);
        assert_eq!(verdict(0.099, 0.79, 8.0), PipelineVerdict::ConsumerBound);
        assert_eq!(verdict(0.0, 0.8, 8.0), PipelineVerdict::Contended);
    }
}
