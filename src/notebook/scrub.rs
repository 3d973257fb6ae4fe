//! What a notebook run prints, made fit to travel in a record: terminal
//! colour codes removed, other control characters escaped, bounded in
//! length, and the facts of the machine that ran it (its folders, the
//! user's name, the host's name) replaced by placeholders, as records name
//! no folder of the machine that made them. The harness returns outputs as
//! the kernel printed them; the rule lives here, in one place.

use std::path::{Path, PathBuf};

/// Account names too common as words to replace outside paths (their home
/// folders are replaced as folders).
pub const GENERIC_USERS: [&str; 8] = [
    "root", "user", "admin", "ubuntu", "jovyan", "runner", "nobody", "guest",
];

/// The facts of the machine a run happened on.
#[derive(Debug, Clone, Default)]
pub struct LocalFacts {
    /// The kernel's working folder: `<workdir>`.
    pub workdir: Option<PathBuf>,
    /// The project root: `<project>`.
    pub project: Option<PathBuf>,
    /// The Python's prefixes (`sys.prefix`, `sys.base_prefix`): `<python>`,
    /// unless a system folder (`/usr`, `/usr/local`).
    pub python_prefixes: Vec<PathBuf>,
    /// The temporary folder: `<tmp>`.
    pub temp: Option<PathBuf>,
    /// The user's home folder: `<home>`.
    pub home: Option<PathBuf>,
    /// The user's names: `<user>` where they stand as a word.
    pub users: Vec<String>,
    /// The host's names: `<host>` where they stand as a word.
    pub hosts: Vec<String>,
}

impl LocalFacts {
    /// This machine's: the home folder, temporary folder and user from the
    /// environment (`USER`, `LOGNAME`, else the home folder's name), the
    /// host name from the kernel; other folders are the caller's to add.
    pub fn of_this_machine() -> Self {
        let env_path = |k: &str| std::env::var_os(k).map(PathBuf::from);
        let mut users: Vec<String> = ["USER", "LOGNAME"]
            .iter()
            .filter_map(|k| std::env::var(k).ok())
            .collect();
        if users.is_empty()
            && let Some(name) = env_path("HOME")
                .and_then(|h| h.file_name().map(|n| n.to_string_lossy().into_owned()))
        {
            users.push(name);
        }
        users.dedup();
        let host = crate::sys::hostname();
        let mut hosts = vec![host.clone()];
        if let Some((short, _)) = host.split_once('.') {
            hosts.push(short.to_string());
        }
        LocalFacts {
            temp: Some(std::env::temp_dir()),
            home: env_path("HOME"),
            users,
            hosts,
            ..LocalFacts::default()
        }
    }
}

/// Replaces a machine's facts in text.
#[derive(Debug, Clone)]
pub struct Scrubber {
    /// Folder and placeholder, longest folder first.
    folders: Vec<(String, &'static str)>,
    /// Word and placeholder.
    words: Vec<(String, &'static str)>,
}

impl Scrubber {
    /// A scrubber for `facts`. Each folder is replaced as given and as its
    /// real path (links resolved), the longest first, so the working folder
    /// inside the temporary folder becomes `<workdir>`, not `<tmp>/...`.
    pub fn new(facts: &LocalFacts) -> Self {
        let mut folders: Vec<(String, &'static str)> = Vec::new();
        let mut add = |p: &Path, placeholder: &'static str| {
            for form in [Some(p.to_path_buf()), p.canonicalize().ok()]
                .into_iter()
                .flatten()
            {
                let s = form.to_string_lossy().trim_end_matches('/').to_string();
                if s.len() > 1 && !folders.iter().any(|(f, _)| *f == s) {
                    folders.push((s, placeholder));
                }
            }
        };
        let one = |p: &Option<PathBuf>| p.clone().into_iter();
        one(&facts.workdir).for_each(|p| add(&p, "<workdir>"));
        one(&facts.project).for_each(|p| add(&p, "<project>"));
        for p in &facts.python_prefixes {
            if !matches!(p.to_str(), Some("/usr" | "/usr/local" | "/")) {
                add(p, "<python>");
            }
        }
        one(&facts.temp).for_each(|p| add(&p, "<tmp>"));
        one(&facts.home).for_each(|p| add(&p, "<home>"));
        folders.sort_by_key(|f| std::cmp::Reverse(f.0.len()));
        let mut words = Vec::new();
        for u in &facts.users {
            if u.len() >= 3 && !GENERIC_USERS.contains(&u.to_lowercase().as_str()) {
                words.push((u.clone(), "<user>"));
            }
        }
        for h in &facts.hosts {
            if h.len() >= 3 && h != "localhost" {
                words.push((h.clone(), "<host>"));
            }
        }
        words.sort_by_key(|w| std::cmp::Reverse(w.0.len()));
        words.dedup();
        Scrubber { folders, words }
    }

    /// `text` with every fact replaced, and the kernel's per-run names
    /// (`ipykernel_<pid>/<n>.py`, the file a cell's code is compiled from)
    /// made the same on every run.
    pub fn scrub(&self, text: &str) -> String {
        let mut s = text.to_string();
        for (folder, placeholder) in &self.folders {
            s = replace_bounded(
                &s,
                folder,
                placeholder,
                |c| !is_path_char(c),
                |c| !is_path_char(c),
            );
        }
        s = ipykernel_names(&s);
        for (word, placeholder) in &self.words {
            s = replace_bounded(
                &s,
                word,
                placeholder,
                |c| !is_word_char(c),
                |c| !is_word_char(c),
            );
        }
        s
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_path_char(c: char) -> bool {
    is_word_char(c) || matches!(c, '.' | '-' | '+' | '~')
}

/// Replaces each `needle` whose next character passes `after_ok` (or that
/// ends the text) and whose previous one passes `before_ok` (or that starts
/// it).
fn replace_bounded(
    text: &str,
    needle: &str,
    placeholder: &str,
    after_ok: impl Fn(char) -> bool,
    before_ok: impl Fn(char) -> bool,
) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut from) = (0, 0);
    while let Some(found) = text[from..].find(needle) {
        let at = from + found;
        let end = at + needle.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if after.is_none_or(&after_ok) && before.is_none_or(&before_ok) {
            out.push_str(&text[copied..at]);
            out.push_str(placeholder);
            copied = end;
            from = end;
        } else {
            from = at + needle.chars().next().map_or(1, char::len_utf8);
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// `ipykernel_12345/678.py` as `ipykernel_<pid>/<cell>.py`.
fn ipykernel_names(text: &str) -> String {
    const MARK: &str = "ipykernel_";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at + MARK.len()]);
        rest = &rest[at + MARK.len()..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            continue;
        }
        out.push_str("<pid>");
        rest = &rest[digits..];
        if let Some(after) = rest.strip_prefix('/') {
            let n = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if n > 0 && after[n..].starts_with(".py") {
                out.push_str("/<cell>");
                rest = &after[n..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text as a terminal would show it, without the terminal: ANSI escape
/// sequences (colours, cursor moves) removed, and every other control
/// character but tab and line feed written as `\u{..}`, so a record holds
/// only what reads as text.
pub fn plain_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                // CSI: parameters and intermediates, then one final byte.
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ESC \.
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            },
            '\n' | '\t' => out.push(c),
            '\r' => {}
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `text`: its start and its end (where a
/// traceback says what failed), with how much was left out between them.
pub fn bounded(text: &str, max: usize) -> (String, usize) {
    let total = text.chars().count();
    if total <= max {
        return (text.to_string(), 0);
    }
    let head = max * 3 / 4;
    let tail = max - head;
    let left_out = total - head - tail;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(total - tail).collect();
    (
        format!("{start}\n[... {left_out} characters left out ...]\n{end}"),
        left_out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> LocalFacts {
        LocalFacts {
            workdir: Some("/tmp/rc-nb-x1/work".into()),
            project: Some("/home/alice/book".into()),
            python_prefixes: vec!["/home/alice/venvs/nb".into(), "/usr".into()],
            temp: Some("/tmp".into()),
            home: Some("/home/alice".into()),
            users: vec!["alice".into(), "root".into()],
            hosts: vec!["lab-7.example.org".into(), "lab-7".into()],
        }
    }

    #[test]
    fn folders_become_placeholders_the_most_specific_first() {
        let s = Scrubber::new(&facts());
        assert_eq!(
            s.scrub("/home/alice/venvs/nb/lib/python3.11/site-packages/torch/x.py:3: UserWarning"),
            "<python>/lib/python3.11/site-packages/torch/x.py:3: UserWarning"
        );
        assert_eq!(s.scrub("cwd /tmp/rc-nb-x1/work"), "cwd <workdir>");
        assert_eq!(s.scrub("/home/alice/book/data.csv"), "<project>/data.csv");
        assert_eq!(s.scrub("see /home/alice/notes"), "see <home>/notes");
        // A folder's name inside a longer name is not that folder.
        assert_eq!(
            s.scrub("/tmpfiles and /home/alice2/x"),
            "/tmpfiles and /home/alice2/x"
        );
        // A system Python's prefix is no fact of this machine.
        assert_eq!(
            s.scrub("/usr/lib/python3.11/os.py"),
            "/usr/lib/python3.11/os.py"
        );
    }

    #[test]
    fn a_kernels_per_run_names_read_the_same_on_every_run() {
        let s = Scrubber::new(&facts());
        assert_eq!(
            s.scrub("File /tmp/ipykernel_48213/2781513744.py:3\n  ipykernel_ alone"),
            "File <tmp>/ipykernel_<pid>/<cell>.py:3\n  ipykernel_ alone"
        );
    }

    #[test]
    fn user_and_host_names_are_replaced_as_words_only() {
        let s = Scrubber::new(&facts());
        assert_eq!(
            s.scrub("alice@lab-7.example.org ran it on lab-7; malice and alice_x stay"),
            "<user>@<host> ran it on <host>; malice and alice_x stay"
        );
        // A generic account name is a word too common to replace.
        assert_eq!(s.scrub("the square root"), "the square root");
    }

    #[test]
    fn terminal_codes_go_and_other_controls_are_escaped() {
        let traceback =
            "\u{1b}[31mAssertionError\u{1b}[39m: x\u{1b}]0;title\u{7} \u{0}bell\u{7}\r\n\tnext";
        assert_eq!(
            plain_text(traceback),
            "AssertionError: x \\u{0}bell\\u{7}\n\tnext"
        );
    }

    #[test]
    fn long_output_keeps_its_start_and_its_end() {
        let text: String = ('a'..='z').collect();
        assert_eq!(bounded(&text, 100), (text.clone(), 0));
        let (cut, left_out) = bounded(&text, 8);
        assert_eq!(left_out, 18);
        assert_eq!(cut, "abcdef\n[... 18 characters left out ...]\nyz");
    }
}
