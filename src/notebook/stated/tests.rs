//! The matching rule on small sentences and printed lines.

use super::*;
use crate::published::criteria::Criterion;

fn sentence(text: &str) -> Sentence {
    Sentence {
        text: text.into(),
        source: "prose".into(),
        location: "prose".into(),
        section: None,
    }
}

fn printed(cell: &str, output: &str) -> PrintedCell {
    PrintedCell {
        cell: cell.into(),
        output: output.into(),
        others: Vec::new(),
        code: String::new(),
    }
}

/// What a cell printed in each of several kernels.
fn printed_in(cell: &str, outputs: &[&str]) -> PrintedCell {
    PrintedCell {
        cell: cell.into(),
        output: outputs[0].into(),
        others: outputs[1..].iter().map(|o| o.to_string()).collect(),
        code: String::new(),
    }
}

fn readings(text: &str, out: &[PrintedCell]) -> Vec<(String, StatedReading)> {
    hold(&[sentence(text)], out, &[])
        .into_iter()
        .map(|f| (f.stated, f.reading))
        .collect()
}

#[test]
fn a_loss_that_differs_is_found_with_a_claim_that_reads_it() {
    let out = [printed("train", "step 10\nfinal loss: 0.031\n")];
    let found = hold(
        &[sentence(
            "The unscaled run diverges: the final loss is 12.5.",
        )],
        &out,
        &[],
    );
    assert_eq!(found.len(), 1);
    let f = &found[0];
    assert_eq!(f.reading, StatedReading::Differs);
    assert_eq!(f.printed, Some(0.031));
    assert_eq!(f.shared_words, vec!["final", "loss"]);
    let claim = f.ready_claim.as_ref().unwrap();
    assert_eq!(claim.id, "final-loss-12.5");
    assert_eq!(claim.metric, "nb.final_loss");
    assert_eq!(
        claim.reads["final_loss"].label.as_deref(),
        Some("final loss:")
    );
    assert_eq!(claim.reproduce, Criterion::Between([12.45, 12.55]));
}

#[test]
fn counts_unrelated_to_the_output_are_not_printed() {
    let out = [printed("count", "params: 110\n")];
    assert_eq!(
        readings(
            "A layer from 10 inputs to 10 outputs has 110 parameters.",
            &out
        ),
        vec![
            ("10".into(), StatedReading::NotPrinted),
            ("10".into(), StatedReading::NotPrinted),
            ("110".into(), StatedReading::Agrees),
        ]
    );
    let out = [printed("m", "model 1: loss 0.20\nmodel 2: loss 0.25\n")];
    assert_eq!(
        readings("We train 3 models in chapter 4.", &out),
        vec![("3".into(), StatedReading::NotPrinted)]
    );
}

#[test]
fn agreement_is_at_the_stated_precision() {
    let out = [printed("draw", "mean: 1.0497\n")];
    assert_eq!(
        readings("The mean sits near 1.05.", &out),
        vec![("1.05".into(), StatedReading::Agrees)]
    );
    assert_eq!(
        readings("The mean sits near 1.0.", &out),
        vec![("1.0".into(), StatedReading::Agrees)]
    );
    assert_eq!(
        readings("The mean sits near 1.2.", &out),
        vec![("1.2".into(), StatedReading::Differs)]
    );
}

#[test]
fn batch_geometry_agrees_number_by_number() {
    let out = [printed(
        "c06-e1code",
        "keep_last: 7 batches, last=(4, 4)\ndrop_last: 6 batches, last=(16, 4)\n",
    )];
    let found = hold(
        &[sentence(
            "`drop_last=False` must yield 7 batches (last has 4); `True` must yield 6 full ones.",
        )],
        &out,
        &[],
    );
    let r: Vec<_> = found
        .iter()
        .map(|f| (f.stated.as_str(), f.reading))
        .collect();
    assert_eq!(
        r,
        vec![
            ("7", StatedReading::Agrees),
            ("4", StatedReading::Agrees),
            ("6", StatedReading::Agrees)
        ]
    );
    let seven = found[0].ready_claim.as_ref().unwrap();
    assert_eq!(
        seven.reads["keep_last"].label.as_deref(),
        Some("keep_last:")
    );
}

#[test]
fn units_keep_apart_what_words_alone_would_join() {
    let out = [printed(
        "e2",
        "slow: 0.409s over 3 batches | fast: 0.0007s over 3 batches\nwait: 0.0281s\n",
    )];
    // A ratio is not a duration, even where `faster` meets `fast`.
    assert_eq!(
        readings("The first pipeline got 7.4 times faster.", &out),
        vec![("7.4".into(), StatedReading::NotPrinted)]
    );
    // A duration is compared in the sentence's unit.
    assert_eq!(
        readings("The wait fell to 28.1 ms.", &out),
        vec![("28.1".into(), StatedReading::Agrees)]
    );
    assert_eq!(
        readings("The wait fell to 12 ms.", &out),
        vec![("12".into(), StatedReading::Differs)]
    );
    // A margin of 3x is not 3 batches.
    assert_eq!(
        readings("The slow loader takes longer (generous margin: 3x).", &out),
        vec![("3".into(), StatedReading::NotPrinted)]
    );
}

#[test]
fn a_bound_in_brackets_differs_from_the_loss_printed() {
    let out = [printed("train", "epoch 5: loss 0.0123\n")];
    assert_eq!(
        readings("The unscaled pipeline diverges (loss > 10).", &out),
        vec![("10".into(), StatedReading::Differs)]
    );
    let found = hold(
        &[sentence("The unscaled pipeline diverges (loss > 10).")],
        &out,
        &[],
    );
    let claim = found[0].ready_claim.as_ref().unwrap();
    assert_eq!(claim.reproduce, Criterion::AtLeast(10.0));
    let out = [printed("train", "epoch 5: loss 31.5\n")];
    assert_eq!(
        readings("The unscaled pipeline diverges (loss > 10).", &out),
        vec![("10".into(), StatedReading::Agrees)]
    );
}

#[test]
fn names_years_and_references_are_not_stated_numbers() {
    assert!(!states_a_number(
        "See chapter 6 and the float32 weights of c06."
    ));
    assert!(!states_a_number("Published in 2019."));
    assert!(states_a_number("It ran 3 times."));
}

#[test]
fn an_approximate_number_holds_within_a_tenth() {
    let out = [printed("time", "epoch time: 2.31s\n")];
    assert_eq!(
        readings("Training takes about 2.5 seconds per epoch.", &out),
        vec![("2.5".into(), StatedReading::Agrees)]
    );
    let out = [printed("time", "epoch time: 3.1s\n")];
    assert_eq!(
        readings("Training takes about 2.5 seconds per epoch.", &out),
        vec![("2.5".into(), StatedReading::Differs)]
    );
}

#[test]
fn a_training_log_differs_only_where_a_result_is_stated() {
    let out = [printed(
        "fit",
        "epoch 19: loss 0.231 acc 0.918\nfinal accuracy: 91.8%\nTotal params: 1,052,672\n",
    )];
    assert_eq!(
        readings(
            "We train for 20 epochs at a learning rate of 0.01 and reach 92.5% accuracy.",
            &out
        ),
        vec![
            ("20".into(), StatedReading::NotPrinted),
            ("0.01".into(), StatedReading::NotPrinted),
            ("92.5".into(), StatedReading::Differs),
        ]
    );
    assert_eq!(
        readings("The model has 3 layers and 1,052,672 parameters.", &out),
        vec![
            ("3".into(), StatedReading::NotPrinted),
            ("1,052,672".into(), StatedReading::Agrees),
        ]
    );
}

#[test]
fn a_percentage_is_held_against_a_fraction_printed_bare() {
    let out = [printed("fit", "accuracy: 0.918\n")];
    assert_eq!(
        readings("It reaches 92.5% accuracy.", &out),
        vec![("92.5".into(), StatedReading::Differs)]
    );
    assert_eq!(
        readings("It reaches 91.8% accuracy.", &out),
        vec![("91.8".into(), StatedReading::Agrees)]
    );
}

#[test]
fn no_claim_is_offered_where_no_read_takes_the_number_alone() {
    let out = [printed("fit", "loss: 0.5\nloss: 0.3\n")];
    let found = hold(&[sentence("The loss ends at 0.3.")], &out, &[]);
    assert_eq!(found[0].reading, StatedReading::Agrees);
    assert!(found[0].ready_claim.is_none());
    let out = [printed("fit", "epoch 1 loss: 0.5\nepoch 2 loss: 0.3\n")];
    let found = hold(&[sentence("The loss ends at 0.3.")], &out, &[]);
    let claim = found[0].ready_claim.as_ref().unwrap();
    assert_eq!(
        claim.reads["loss"].pattern.as_deref(),
        Some(r"^\s*epoch 2 loss: ([-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)")
    );
    assert_eq!(claim.metric, "nb.loss");
}

#[test]
fn a_second_number_of_a_clause_differs_from_its_own_line() {
    let out = [
        printed("c1", "kept fraction: 0.500\nmean activation: 1.004\n"),
        printed(
            "c2",
            "eval kept fraction: 1.000\neval mean activation: 1.000\n",
        ),
    ];
    let found = hold(
        &[sentence(
            "At evaluation time nothing is dropped, so the kept fraction is 1.0 and the mean activation is 1.5.",
        )],
        &out,
        &[],
    );
    let r: Vec<_> = found
        .iter()
        .map(|f| {
            (
                f.stated.as_str(),
                f.reading,
                f.line.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        r,
        vec![
            ("1.0", StatedReading::Agrees, "eval kept fraction: 1.000"),
            ("1.5", StatedReading::Differs, "eval mean activation: 1.000"),
        ]
    );
}

#[test]
fn a_bound_in_words_takes_the_subject_its_clause_leaves_free() {
    let out = [printed(
        "c1",
        "no warmup, step 100: loss 0.412\nwarmup 20, step 100: loss 0.351\n",
    )];
    let found = hold(
        &[sentence(
            "Without warmup, the loss after 100 steps is above 10.",
        )],
        &out,
        &[],
    );
    assert_eq!(found[0].reading, StatedReading::Agrees);
    assert_eq!(found[1].reading, StatedReading::Differs);
    assert_eq!(found[1].printed, Some(0.412));
    let claim = found[1].ready_claim.as_ref().unwrap();
    assert_eq!(claim.reproduce, Criterion::AtLeast(10.0));
}

#[test]
fn a_printed_index_agrees_only_through_its_own_word() {
    let out = [printed(
        "c2",
        "epoch 1: loss 1.000\nepoch 2: loss 0.500\nelapsed: 0.41s\n",
    )];
    assert_eq!(
        readings("Training for 2 epochs takes about 2 seconds.", &out),
        vec![
            ("2".into(), StatedReading::Agrees),
            ("2".into(), StatedReading::NotPrinted),
        ]
    );
}

#[test]
fn the_issue_cases_differ_with_the_number_the_sentence_states() {
    let s = "A layer from 10 to 12 has 132 parameters.";
    for out in ["params: 112\n", "layer parameters: 112\n"] {
        let found = hold(&[sentence(s)], &[printed("count", out)], &[]);
        let differs: Vec<_> = found
            .iter()
            .filter(|f| f.reading == StatedReading::Differs)
            .collect();
        assert_eq!(differs.len(), 1, "{out}: {found:?}");
        assert_eq!(differs[0].stated, "132");
        assert_eq!(differs[0].printed, Some(112.0));
        let claim = differs[0].ready_claim.as_ref().unwrap();
        assert_eq!(claim.stated.value, 132.0);
    }
    let out = [printed("train", "final loss: 0.015\n")];
    let found = hold(&[sentence("The final loss is 12.5 here.")], &out, &[]);
    assert_eq!(found[0].reading, StatedReading::Differs);
    let claim = found[0].ready_claim.as_ref().unwrap();
    assert_eq!(claim.stated.value, 12.5);
    assert_eq!(claim.id, "final-loss-12.5");
}

#[test]
fn a_ready_claim_pastes_under_notebook_claims_as_printed() {
    let out = [printed("train", "final loss: 0.015\n")];
    let found = hold(
        &[sentence("Don't trust it: the final loss is 12.5 here.")],
        &out,
        &[],
    );
    let claim = found[0].ready_claim.as_ref().unwrap();
    let lines = yaml::ready_claim_lines(claim);
    assert!(lines[0].starts_with("- id: final-loss-12.5"), "{lines:?}");
    assert!(lines.contains(&"  stated: {value: 12.5, tolerance: 0.05}".to_string()));
    let text = format!(
        "schema: research_companion.claims.v1\nchapter: b/01\nclaims: []\nnotebook_claims:\n{}\n",
        lines.join("\n")
    );
    let file: crate::published::claims::ClaimsFile = serde_yaml::from_str(&text).unwrap();
    assert_eq!(file.notebook_claims[0].quote, claim.quote);
    assert_eq!(file.notebook_claims[0].reads, claim.reads);
    assert_eq!(file.notebook_claims[0].reproduce, claim.reproduce);
}

#[test]
fn a_number_tied_through_a_word_on_the_line_is_the_first_after_it() {
    let out = [printed(
        "e1",
        "keep_last: 7 batches, last=(4, 4)\ndrop_last: 6 batches, last=(16, 4)\n",
    )];
    let found = hold(
        &[sentence(
            "`drop_last=False` must yield 7 batches (last has 4)",
        )],
        &out,
        &[],
    );
    let four = found.iter().find(|f| f.stated == "4").unwrap();
    assert_eq!(four.reading, StatedReading::Agrees);
    assert_eq!(
        four.line.as_deref(),
        Some("keep_last: 7 batches, last=(4, 4)")
    );
}

#[test]
fn a_ready_claim_is_named_after_the_matched_words_and_an_index_gets_none() {
    let out = [printed("fit", "value: 0.25 (learning rate)\n")];
    let found = hold(
        &[sentence("The learning rate settles at 0.25 in the fit.")],
        &out,
        &[],
    );
    let c = found[0].ready_claim.as_ref().expect("a ready claim");
    assert_eq!(c.metric, "nb.learning_rate", "{c:?}");
    assert_eq!(c.id, "learning-rate-0.25", "{c:?}");
    let out = [printed("train", "step 100: loss 0.41\n")];
    let found = hold(
        &[sentence("The training loss after 100 steps falls.")],
        &out,
        &[],
    );
    assert!(found.iter().all(|f| f.ready_claim.is_none()), "{found:?}");
}

fn in_section(text: &str, cells: &[&str]) -> Sentence {
    Sentence {
        section: Some(cells.iter().map(|c| c.to_string()).collect()),
        ..sentence(text)
    }
}

#[test]
fn a_markdown_sentence_differs_only_from_its_own_section() {
    let out = [
        printed("c-small", "std after 10 layers: 3.96e-13\n"),
        printed("c-xavier", "std after 10 layers: 0.037\n"),
        printed("c-ckpt", "restored step: 300\n"),
    ];
    let found = hold(
        &[in_section(
            "Xavier's scale leaves the std after 10 layers at about 0.37.",
            &["c-xavier"],
        )],
        &out,
        &[],
    );
    let last = found.last().expect("a finding");
    assert_eq!(last.reading, StatedReading::Differs);
    assert_eq!(last.cell.as_deref(), Some("c-xavier"));
    // Its own cell failed (printed nothing): not held against another's.
    let found = hold(
        &[in_section(
            "The old checkpoint resumes at the restored step 120.",
            &["c-old"],
        )],
        &out,
        &[],
    );
    assert_eq!(found[0].reading, StatedReading::NotPrinted);
}

#[test]
fn a_differs_needs_the_labels_head_in_the_numbers_clause() {
    let out = [
        printed("c-ckpt", "restored step: 300\n"),
        printed("c-norm", "input mean: 5.0, input var: 4.0\n"),
        printed("c-run", "running mean after 10 steps: 1.303\n"),
    ];
    assert_eq!(
        readings("The old checkpoint resumes at step 120.", &out),
        vec![("120".into(), StatedReading::NotPrinted)]
    );
    assert_eq!(
        readings(
            "On input features between 0 and 100, fitting takes 250 steps.",
            &out
        ),
        vec![
            ("0".into(), StatedReading::NotPrinted),
            ("100".into(), StatedReading::NotPrinted),
            ("250".into(), StatedReading::NotPrinted),
        ]
    );
    assert_eq!(
        readings("The restored step is 120.", &out),
        vec![("120".into(), StatedReading::Differs)]
    );
}

#[test]
fn a_labels_brackets_stay_with_the_label() {
    let out = [printed("c-train", "final loss (raw inputs): 0.0000\n")];
    assert_eq!(
        readings(
            "On the raw inputs training diverges and the final loss exceeds 10.",
            &out
        ),
        vec![("10".into(), StatedReading::Differs)]
    );
}

#[test]
fn an_amount_per_item_never_differs_from_a_total() {
    let out = [printed(
        "c-bytes",
        "float32 bytes: 301056\nfloat16 bytes: 150528\n",
    )];
    assert_eq!(
        readings(
            "At float32 each element takes 4 bytes, so the batch takes 301056 bytes.",
            &out
        ),
        vec![
            ("4".into(), StatedReading::NotPrinted),
            ("301056".into(), StatedReading::Agrees),
        ]
    );
}

#[test]
fn a_value_every_kernel_printed_alike_agrees_without_saying_it_varies() {
    let out = [printed_in(
        "train",
        &[
            "final loss: 0.43\n",
            "final loss: 0.43\n",
            "final loss: 0.43\n",
        ],
    )];
    let found = hold(&[sentence("The final loss is 0.43.")], &out, &[]);
    assert_eq!(found[0].reading, StatedReading::Agrees);
    assert_eq!(found[0].varies, None);
}

#[test]
fn a_value_that_varies_across_kernels_agrees_only_if_every_kernel_bears_it_out() {
    // The first kernel printed the stated value, the others did not: the
    // sentence states as fixed what reruns print otherwise.
    let out = [printed_in(
        "train",
        &[
            "final loss: 0.43\n",
            "final loss: 0.47\n",
            "final loss: 0.41\n",
        ],
    )];
    let found = hold(&[sentence("The final loss is 0.43.")], &out, &[]);
    let f = &found[0];
    assert_eq!(f.reading, StatedReading::Differs);
    let v = f.varies.unwrap();
    assert_eq!((v.low, v.high, v.kernels, v.holding), (0.41, 0.47, 3, 1));
    assert_eq!(v.in_words(), "0.41 to 0.47 across 3 kernels");
    // Only a later kernel printed it: still found, and still varies.
    let out = [printed_in(
        "train",
        &["final loss: 0.47\n", "final loss: 0.43\n"],
    )];
    let found = hold(&[sentence("The final loss is 0.43.")], &out, &[]);
    assert_eq!(found[0].reading, StatedReading::Differs);
    assert_eq!(found[0].varies.unwrap().holding, 1);
    // A bound every kernel keeps agrees, and says the value varies.
    let out = [printed_in(
        "train",
        &["final loss: 0.43\n", "final loss: 0.47\n"],
    )];
    let found = hold(&[sentence("The final loss stays below 0.5.")], &out, &[]);
    assert_eq!(found[0].reading, StatedReading::Agrees);
    assert_eq!(found[0].varies.unwrap().holding, 2);
}

#[test]
fn a_kernel_whose_line_reads_otherwise_gives_no_value() {
    // The second kernel printed another line there: its number is not the
    // same quantity, so the value does not vary.
    let out = [printed_in(
        "train",
        &["final loss: 0.43\n", "warning: 3 retries\n"],
    )];
    let found = hold(&[sentence("The final loss is 0.43.")], &out, &[]);
    assert_eq!(found[0].reading, StatedReading::Agrees);
    assert_eq!(found[0].varies, None);
}

#[test]
fn a_negative_number_keeps_its_sign_and_a_key_value_line_its_keys() {
    // `var` labels the next value, not the unit of -3.610; the key `mean`
    // is the value's own word though it stands as near to 1000.
    let out = [printed("stats", "n=1000 mean=-3.610 var=37.413 sd=6.117\n")];
    let found = hold(
        &[sentence(
            "The mean of the thousand readings is -3.16 degrees, with a standard deviation of 6.12.",
        )],
        &out,
        &[],
    );
    let f = &found[0];
    assert_eq!(f.stated, "-3.16");
    assert_eq!(f.reading, StatedReading::Differs);
    assert_eq!(f.printed, Some(-3.61));
    let claim = f.ready_claim.as_ref().unwrap();
    assert_eq!(claim.stated.value, -3.16);
    assert_eq!(claim.id, "mean-minus-3.16");
    // A hyphen between two numbers is no sign.
    let r = read::read("batches 3-4 of the run");
    assert_eq!(
        r.nums.iter().map(|n| n.value).collect::<Vec<_>>(),
        vec![3.0, 4.0]
    );
    let r = read::read("a minimum of −22.4 degrees");
    assert_eq!(r.nums[0].value, -22.4);
    assert_eq!(r.nums[0].text, "-22.4");
}

#[test]
fn scientific_notation_is_read_at_the_precision_of_its_mantissa() {
    // 2.2e-16 is not -1.1e-16, however small both are.
    let out = [printed("sum", "error: -1.1102230246251565e-16\n")];
    assert_eq!(
        readings(
            "The naive sum misses 1.0 by an error of about 2.2e-16.",
            &out
        )
        .into_iter()
        .find(|(n, _)| n == "2.2e-16")
        .unwrap()
        .1,
        StatedReading::Differs
    );
    let out = [printed("sum", "error: 2.21e-16\n")];
    let found = hold(&[sentence("The error is 2.2e-16.")], &out, &[]);
    assert_eq!(found[0].reading, StatedReading::Agrees);
    // The ready claim's band is the number's own: half a unit of its last
    // digit, 1e-17, not 0.05.
    let claim = found[0].ready_claim.as_ref().unwrap();
    assert_eq!(claim.stated.tolerance, 5e-18);
}

#[test]
fn an_ordinal_is_no_value() {
    let out = [printed("q", "longest wait: 60.9 time units\n")];
    let found = hold(
        &[sentence("The 95th percentile of the wait is much lower.")],
        &out,
        &[],
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_value_printed_as_stated_elsewhere_is_no_lead() {
    // `wait 0.1 s` shares no word with `delays (s): [0.1, ...]`, but the
    // value is printed there: the total's line is not what it speaks of.
    let out = [printed(
        "sched",
        "delays (s): [0.1, 0.2, 0.4]\ntotal wait if every attempt fails: 16.3 s\n",
    )];
    assert_eq!(
        readings("Retry with backoff: wait 0.1 s first.", &out),
        vec![("0.1".to_string(), StatedReading::NotPrinted)]
    );
    let out = [printed(
        "sched",
        "total wait if every attempt fails: 16.3 s\n",
    )];
    assert_eq!(
        readings("Retry with backoff: wait 0.1 s first.", &out),
        vec![("0.1".to_string(), StatedReading::Differs)]
    );
}

#[test]
fn a_value_the_code_sets_is_no_lead() {
    let mut p = printed("fd", "finite difference: 29.000000\n");
    let sentence_ = "A central finite difference with a step of 1e-4 agrees well.";
    assert_eq!(
        readings(sentence_, std::slice::from_ref(&p)),
        vec![("1e-4".to_string(), StatedReading::Differs)]
    );
    p.code = "h = 1e-4\nprint(f\"finite difference: {fd(h):.6f}\")".into();
    assert_eq!(
        readings(sentence_, &[p]),
        vec![("1e-4".to_string(), StatedReading::NotPrinted)]
    );
}

#[test]
fn a_table_row_is_read_by_its_columns_and_the_row_the_sentence_names() {
    let out = [printed(
        "table",
        "rho   mean_wait   p95_wait   theory\n0.5        1.00       4.60     1.00\n0.8        3.96      13.96     4.00\n",
    )];
    let found = hold(
        &[sentence(
            "At a utilisation of 0.8 customers wait 3.5 time units on average, close to the 4.00 that theory predicts.",
        )],
        &out,
        &[],
    );
    let wait = found.iter().find(|f| f.stated == "3.5").unwrap();
    assert_eq!(wait.reading, StatedReading::Differs);
    assert_eq!(wait.printed, Some(3.96), "{wait:?}");
    let theory = found.iter().find(|f| f.stated == "4.00").unwrap();
    assert_eq!(theory.reading, StatedReading::Agrees);
    // A row label names its numbers, which are no index.
    let out = [printed(
        "tok",
        "tokenizer       tokens   vocab\nsyllable       163,459      10\n",
    )];
    let found = hold(
        &[sentence("The syllable tokenizer produces 136,459 tokens.")],
        &out,
        &[],
    );
    assert_eq!(found[0].reading, StatedReading::Differs);
    assert_eq!(found[0].printed, Some(163459.0));
}

/// Whether a cell with `code` sets the value `v`.
fn sets(code: &str, v: f64) -> bool {
    let mut p = printed("c", "");
    p.code = code.into();
    CodeSettings::of(&[p.clone()]).set(v, |_| true)
}

#[test]
fn a_value_in_a_string_or_a_comment_is_set_by_no_code() {
    assert!(sets("loader = DataLoader(ds, batch_size=16)", 16.0));
    assert!(sets("h = 1e-4", 1e-4));
    assert!(!sets("print('params: 112')", 112.0));
    assert!(!sets("print(f\"loss: {x:.3f}\")  # about 0.015", 0.015));
    assert!(!sets("print(\"it's \\\" 7\")", 7.0));
    assert_eq!(code_only("x = 3  # 4"), "x = 3  ");
}
