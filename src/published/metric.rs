//! A claim's metric: a minijinja expression evaluated on a thread of its
//! own under a memory limit and with fuel, so a metric is arithmetic and
//! nothing more.

use minijinja::{Environment, UndefinedBehavior, Value};

/// Work a metric may do before it is stopped (minijinja's fuel): a metric
/// is arithmetic over a few cells and uses a few dozen units.
pub const METRIC_FUEL: u64 = 100_000;

/// The most memory a metric may take while it is evaluated: fuel does not
/// bound the size of what it builds (`(["x"] * 50000000) ~ ""`).
pub const METRIC_MEMORY: usize = 16 << 20;

/// Compiles `metric` and runs `f` on it, on a thread under
/// [`METRIC_MEMORY`]: compiling folds constants (`(["x"] * 50000000) ~ ""`
/// is built then, with no fuel), so it is bounded as evaluating is. The
/// inner error is the compiler's.
fn with_compiled<T: Send + 'static>(
    metric: &str,
    f: impl FnOnce(&minijinja::Expression<'_, '_>) -> T + Send + 'static,
) -> std::result::Result<std::result::Result<T, minijinja::Error>, crate::sys::LimitedRunError> {
    let owned = metric.to_string();
    crate::sys::with_memory_limit(METRIC_MEMORY, move || {
        let env = environment();
        env.compile_expression(&owned).map(|expr| f(&expr))
    })
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(METRIC_FUEL));
    env
}

/// Evaluates a metric over `context`, bounded as every metric is; a name
/// the context lacks is said by `undefined`.
pub(crate) fn evaluate_value(
    metric: &str,
    context: Value,
    undefined: impl FnOnce() -> String,
) -> std::result::Result<f64, String> {
    let evaluated = with_compiled(metric, move |expr| expr.eval(context))
        .map_err(|e| format!("metric '{metric}' cannot be evaluated: {e}"))?
        .map_err(|e| format!("cannot parse metric '{metric}': {e}"))?;
    let value = evaluated.map_err(|e| {
        // A missing table, row or column is undefined, whether it is met
        // alone or inside an operation (`spin.w8.wrk / spin.w0.work`).
        let is_undefined =
            e.kind() == minijinja::ErrorKind::UndefinedError || e.to_string().contains("undefined");
        if is_undefined {
            undefined()
        } else {
            format!("metric '{metric}' cannot be evaluated: {e}")
        }
    })?;
    let x = f64::try_from(value.clone())
        .map_err(|_| format!("metric '{metric}' is not a number: {value}"))?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("metric '{metric}' is not finite ({x})"))
    }
}

/// The names a metric reads: top-level (`spin`) or, with `nested`, whole
/// paths (`spin.w8.wait_mean`); none for a metric that does not compile.
pub(crate) fn names_read(metric: &str, nested: bool) -> std::collections::HashSet<String> {
    with_compiled(metric, move |expr| expr.undeclared_variables(nested))
        .ok()
        .and_then(|r| r.ok())
        .unwrap_or_default()
}
