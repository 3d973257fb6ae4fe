//! Secrets that must not travel (issue 51): the audit's secret and path
//! patterns (what `notebook check` reports), every text field a notebook
//! run keeps going through one redaction, and URLs in a report's ledger
//! losing their tokens on the site as they do elsewhere.

use serde_json::json;

use crate::helpers::{Project, stderr, stdout};
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
                 {'MY_DB_PASSWORD': 'Tr0ub4dor&3xyz!Q'}\n"
    }]);
    p.write("model.ipynb", notebook(vec![cell]));
    let out = p
        .cmd()
        .args(["notebook", "check", "model.ipynb"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let secrets: Vec<&str> = text.lines().filter(|l| l.contains(": secret: ")).collect();
    assert_eq!(
        secrets,
        [
            "model: secret: credential assigned to a secret's name: Tr0u... (16 characters) in a saved output"
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
