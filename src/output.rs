//! Everything the command line writes, so that no I/O error panics or goes unnamed:
//!
//! ```text
//!   say!(..)        ──► standard output ── closed pipe / full disk ──► Err("cannot write to standard output: ..")
//!   write_file(p,b) ──► p.tmp-PID ── rename ──► p        (a failed write leaves no partial p)
//!   prepare_output  ──► parent created, p not a directory, a file can be created beside it
//!   check_distinct  ──► no output is the same file as an input or as another output
//!   progress(n)     ──► indicatif bar on stderr when stderr is a terminal, else nothing
//! ```
//! Every error message names the path (or "standard output") it is about; `main` prints it and
//! exits 2.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Prints one line on standard output; returns from the enclosing function with an error naming
/// standard output when the line cannot be written (closed pipe, full disk).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::say_line(format_args!($($arg)*))?
    };
}
pub(crate) use say;

/// Writes `args` and a newline to standard output.
pub fn say_line(args: std::fmt::Arguments) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// The message of a failed write to standard output.
pub fn stdout_error(e: std::io::Error) -> String {
    format!("cannot write to standard output: {e}")
}

/// Writes a message on standard error; nothing more can be done when even that fails.
pub fn warn(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}

/// Writes `bytes` to `path` whole or not at all: the bytes go to a temporary file beside it,
/// renamed over `path` once complete; on any error the temporary file is removed and the
/// message names `path`. Missing parent directories are created. A symbolic link is written
/// through; a path that is not a regular file (`/dev/null`, a pipe) is written in place, never
/// replaced.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let named = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    if is_special(path) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
            .map_err(named);
    }
    prepare_output(path)?;
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let (path, tmp) = (real.as_path(), temporary_beside(&real));
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        named(e)
    })
}

/// `path` exists and is not a regular file (a device, a pipe, a socket): it is written in place
/// and never created, replaced or removed.
pub fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Removes the partial output at `path` when it is a regular file (never a device or a pipe);
/// says what became of it, for the error message.
pub fn remove_partial(path: &Path) -> String {
    let removed = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::remove_file(path).is_ok();
    if removed {
        format!("the partial {} was removed", path.display())
    } else {
        format!("{} is incomplete", path.display())
    }
}

fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Checks, before a long run, that `path` can be written: its directory exists or is created, it
/// is not a directory, and a file can be created beside it (the probe is removed).
pub fn prepare_output(path: &Path) -> Result<(), String> {
    if is_special(path) {
        return Ok(()); // written in place (see write_file)
    }
    if path.file_name().is_none() {
        return Err(format!("cannot write {}: not a file name", path.display()));
    }
    if path.is_dir() {
        return Err(format!(
            "cannot write {}: it is a directory",
            path.display()
        ));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create directory {}: {e}", dir.display()))?;
    }
    let probe = temporary_beside(path);
    std::fs::File::create(&probe).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Checks, before a long run, that files can be created in directory `dir` (created if missing).
pub fn prepare_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create directory {}: {e}", dir.display()))?;
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    std::fs::File::create(&probe)
        .map_err(|e| format!("cannot write in directory {}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The same file? Both existing: same device and inode (hard links, symbolic links, `..`);
/// otherwise the same absolute path once the existing part is resolved.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    resolved(a) == resolved(b)
}

/// `path` made absolute, with its longest existing ancestor canonicalized.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut tail = Vec::new();
    let mut head = absolute.as_path();
    loop {
        if let Ok(real) = head.canonicalize() {
            return tail.iter().rev().fold(real, |p, t| p.join(t));
        }
        match (head.parent(), head.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                head = parent;
            }
            _ => return absolute,
        }
    }
}

/// Refuses when an output is the same file as an input or as another output (it would be
/// overwritten or written twice). Each path comes with the option that named it.
pub fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), String> {
    for (i, (out_name, out)) in outputs.iter().enumerate() {
        for (in_name, input) in inputs {
            if same_file(out, input) {
                return Err(format!(
                    "{out_name} {} is the same file as {in_name} {}: refusing to overwrite an input",
                    out.display(),
                    input.display()
                ));
            }
        }
        for (other_name, other) in &outputs[i + 1..] {
            if same_file(out, other) {
                return Err(format!(
                    "{out_name} {} and {other_name} {} are the same file: give two different paths",
                    out.display(),
                    other.display()
                ));
            }
        }
    }
    Ok(())
}

/// A progress bar of `len` steps on standard error when it is a terminal; hidden otherwise (so
/// logs and pipes stay quiet).
pub fn progress(len: u64, unit: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = format!("{{msg}} [{{bar:32}}] {{human_pos}}/{{human_len}} {unit} ({{eta}})");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// A writer whose writes go around a progress bar (hidden while they are written).
pub struct AroundBar<'a, W: Write> {
    bar: &'a ProgressBar,
    inner: W,
}

impl<'a, W: Write> AroundBar<'a, W> {
    pub fn new(bar: &'a ProgressBar, inner: W) -> Self {
        AroundBar { bar, inner }
    }
}

impl<W: Write> Write for AroundBar<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let inner = &mut self.inner;
        self.bar.suspend(|| inner.write(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A spinner with a message on standard error when it is a terminal; hidden otherwise.
pub fn spinner(message: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
