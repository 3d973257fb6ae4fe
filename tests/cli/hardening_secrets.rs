//! Secrets that must not travel (issue 51): the audit's secret and path
//! patterns (what `notebook check` reports), every text field a notebook
//! run keeps going through one redaction, and URLs in a report's ledger
//! losing their tokens on the site as they do elsewhere.

use serde_json::json;

use crate::helpers::{Project, stderr, stdout};
use crate::notebook::kernel::kernel_python;
use crate::notebook::{code, notebook};

#[test]
fn check_reports_secret_names_as_words_and_home_folders_in_any_spelling() {
    let p = Project::seeded();
    let mut cell = code(
        "model",
        "tokenizer = \"meta-llama/Llama-2-7b-hf\"\nconfig = {\"tokenizer_class\": \"GPT2TokenizerFast\"}",
    );
    cell["outputs"] = json!([{
        "output_type": "stream",
        "name": "stdout",
        "text": "TOKENIZER_PATH: models/llama-2-7b/tokenizer.model\n\
                 pip install sk-learn-compatible-estimators-wrapper\n\
                 HOME=/home/x\nopened file:///home/x/data.csv\nc:/Users/x/nb.ipynb\n\
                 {'MY_DB_PASSWORD': 'Tr0ub4dor&3xyz!Q'}\n\
                 DATABASE_URL=postgres://admin:S3cretPw9@db:5432/app\n"
    }]);
    p.write("model.ipynb", notebook(vec![cell]));
    let out = p.expect(["notebook", "check", "model.ipynb"]).code(1).run();
    let text = out.stdout();
    assert!(!text.contains("S3cretPw9"), "{text}");
    let secrets: Vec<&str> = text.lines().filter(|l| l.contains(": secret: ")).collect();
    assert_eq!(
        secrets,
        [
            "model: secret: credential assigned to a secret's name: Tr0u... (16 characters) in a saved output",
            "model: secret: URL with credentials or a secret parameter: postgres://db:5432/app in a saved output",
        ],
        "{text}"
    );
    for path in ["/home/x", "/home/x/data.csv", "c:/Users/x/nb.ipynb"] {
        assert!(
            text.contains(&format!("model: local-path: {path} in a saved output\n")),
            "{path}\n{text}"
        );
    }
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn no_secret_a_notebook_run_meets_reaches_a_record_or_a_reader() {
    let Some(python) = kernel_python("no_secret_a_notebook_run_meets_reaches_a_record_or_a_reader")
    else {
        return;
    };
    let _g = crate::helpers::exclusive();
    let p = Project::with_fixture_records();
    // A password cut at `&` and under 12 characters after it; a token in a
    // cell's first line; a token as an exception's class name (built from
    // pieces, so the notebook's source does not hold it whole).
    let password = "Tr0ub4dor&3xyz!Q";
    let hf = "hf_Zq81mBv0TrPk22LsXeQw93NbVc41MxYz";
    let ghp = format!("ghp_{}Ab3dE6", "Ab3dE5fG7h".repeat(3));
    let home = std::env::var("HOME").unwrap_or_default();
    let home = home.trim_end_matches('/');
    let nb = notebook(vec![
        code(
            "env",
            &format!(
                "import os\nos.environ.update({{'MY_DB_PASSWORD': '{password}'}})\nprint(dict(os.environ))"
            ),
        ),
        code("hf", &format!("HF_TOKEN = '{hf}'\nprint(len(HF_TOKEN))")),
        // A URL whose user is the machine's (USER below), a first line
        // naming the home folder, and HTTP headers with credentials.
        code(
            "db",
            &format!(
                "# {home}/secret/path\nprint('postgresql://alicewonder:' + 'S3cr3tPwA@db/app')\n\
                 print('Authorization: Bearer AbC123' + 'def456GHI789')\n\
                 print('Cookie: sessionid=abc123' + 'def456ghi')"
            ),
        ),
        code(
            "raises",
            "name = 'ghp_' + 'Ab3dE5fG7h' * 3 + 'Ab3dE6'\nraise type(name, (Exception,), {})('for ' + name)",
        ),
    ]);
    crate::notebook::without_notebook_claims(&p);
    p.write("leaky.ipynb", nb);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", "leaky.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = p
        .expect(["notebook", "run", "06", "--cell-timeout", "60", "--python"])
        .arg(&python)
        .env("USER", "alicewonder")
        .env("LOGNAME", "alicewonder")
        .code(1)
        .run();
    let mut shown = vec![("notebook run".to_string(), out.stdout() + &out.stderr())];
    assert!(
        out.stdout().contains(
            "raises FAIL (line 2 `raise type(name, (Exception,), {})('for ' + name)`: <secret>: for <secret>)"
        ),
        "{}",
        out.stdout()
    );
    for args in [
        vec!["status"],
        vec!["history", "06"],
        vec!["prompt", "06"],
        vec!["report", "06"],
        vec!["publish", "06"],
        vec!["notebook", "report"],
    ] {
        let out = p.cmd().args(&args).output().unwrap();
        shown.push((args.join(" "), stdout(&out) + &stderr(&out)));
    }
    p.cmd().args(["site", "--out", "site"]).assert().success();
    let files = |dir: &str| {
        crate::helpers::files_under(&p.path(dir))
            .into_iter()
            .map(|f| (f.display().to_string(), std::fs::read(&f).unwrap()))
            .collect::<Vec<_>>()
    };
    for (name, bytes) in files("records").into_iter().chain(files("site")) {
        shown.push((name, String::from_utf8_lossy(&bytes).into_owned()));
    }
    // Each field is there, its secret taken out.
    let (_, prompt) = &shown[3];
    assert!(prompt.contains("HF_TOKEN = '<secret>'"), "{prompt}");
    assert!(prompt.contains("'MY_DB_PASSWORD': '<secret>'"), "{prompt}");
    let record = shown
        .iter()
        .find(|(name, text)| name.contains("records") && text.contains("first_line"))
        .map(|(_, text)| text.as_str())
        .unwrap_or_default();
    assert!(
        record.contains("first_line: '# <home>/secret/path'")
            || record.contains("first_line: \"# <home>/secret/path\""),
        "{record}"
    );
    assert!(record.contains("postgresql://db/app"), "{record}");
    let home_path = format!("{home}/secret/path");
    for (what, text) in &shown {
        for secret in [
            password,
            hf,
            ghp.as_str(),
            "Tr0ub4dor",
            "3xyz!Q",
            "S3cr3tPwA",
            "AbC123def456GHI789",
            "abc123def456ghi",
        ] {
            assert!(!text.contains(secret), "{secret} in {what}:\n{text}");
        }
        if home.len() > 1 {
            assert!(!text.contains(&home_path), "{home_path} in {what}:\n{text}");
        }
    }
}

#[test]
fn the_site_renders_a_reports_ledger_urls_without_their_tokens() {
    let p = Project::with_fixture_records();
    let rows = "| A loopback service | Doe, J. | 2024 | https://[::1]:8080/x?token=tok-ipv6-999&page=2 | full text | none | local only | 2026-12-01 / 2026-12-01 |\n\
                | A split host | Roe, R. | 2023 | http://exa mple.org/?token=tok-space-888 | abstract only | none | a typo in the host | 2026-12-01 / 2026-12-01 |\n\
                | A wide split | Poe, E. | 2022 | https://exa  mple.org/?token=tok-wide-555 | abstract only | none | two spaces in the host | 2026-12-01 / 2026-12-01 |\n\
                | A bracketed path | Loe, L. | 2021 | https://example.org/path(1)?sig=tok-paren-444 | abstract only | none | none | 2026-12-01 / 2026-12-01 |\n\
                | Semicolons | Moe, M. | 2020 | https://example.org/q?a=1;token=tok-semi-333 | abstract only | none | see “https://e.org/?token=tok-curly-777” and éhttps://e.org/?token=tok-acute-666 | 2026-12-01 / 2026-12-01 |\n\
                | Encoded | Noe, N. | 2019 | https://example.org/q?token%3dtok-enc-222 | abstract only | none | none | 2026-12-01 / 2026-12-01 |\n";
    let report = crate::helpers::fixture_report("review-06.md");
    let anchor = "| tf.data: A Machine Learning Data Processing Framework |";
    let at = report.find(anchor).unwrap();
    let line_end = at + report[at..].find('\n').unwrap() + 1;
    let report = format!("{}{rows}{}", &report[..line_end], &report[line_end..]);
    p.write("review.md", report);
    p.record(&["--report", "review.md"]);
    let secrets = [
        "tok-ipv6-999",
        "tok-space-888",
        "tok-wide-555",
        "tok-paren-444",
        "tok-semi-333",
        "tok-curly-777",
        "tok-acute-666",
        "tok-enc-222",
    ];
    for args in [
        vec!["prompt", "06"],
        vec!["report", "06"],
        vec!["publish", "06"],
    ] {
        let out = p.cmd().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        for s in secrets {
            assert!(!stdout(&out).contains(s), "{args:?} shows {s}");
        }
    }
    let out = p.cmd().args(["site", "--out", "site"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let page =
        std::fs::read_to_string(p.path(&format!("site/{}.html", crate::helpers::CHAPTER))).unwrap();
    // The rows are rendered, their URLs without the token.
    assert!(page.contains("A loopback service"), "{page}");
    assert!(page.contains("https://[::1]:8080/x?page=2"), "{page}");
    assert!(page.contains("http://exa mple.org/"), "{page}");
    for f in crate::helpers::files_under(&p.path("site")) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        for s in secrets {
            assert!(!text.contains(s), "{} shows {s}", f.display());
        }
    }
}

/// A URL right after a character of more than one byte (`“https://...`,
/// `éhttps://...`) in a notebook's source: the audit reads it (and names
/// the token URL) instead of stopping on the character's middle byte, in
/// `notebook check` and after `notebook add` in `notebook check 06` and
/// `notebook report`.
#[test]
fn a_url_after_a_wide_character_is_read_not_a_crash() {
    let p = Project::seeded();
    let cell = |id: &str, src: &str| {
        serde_json::json!({"cell_type": "code", "id": id, "metadata": {},
            "execution_count": null, "outputs": [], "source": [src]})
    };
    let nb = serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            cell("curly", "print('see “https://e.org/?token=abcdefgh12”')"),
            cell("acute", "print('éhttps://e.org/x')"),
        ],
    });
    p.write("wide.ipynb", nb.to_string());
    for args in [
        vec!["notebook", "check", "wide.ipynb"],
        vec!["notebook", "add", "06", "wide.ipynb"],
        vec!["notebook", "check", "06"],
        vec!["notebook", "report"],
    ] {
        let out = p.cmd().args(&args).output().unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{args:?}: {code:?} {}",
            stderr(&out)
        );
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(
            !stdout(&out).contains("abcdefgh12"),
            "{args:?}: {}",
            stdout(&out)
        );
    }
}
