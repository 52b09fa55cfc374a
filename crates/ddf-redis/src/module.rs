//! The Redis side: the `ddfwindow` data type, the `DDF.*` commands, their
//! replication, and the module options.
//!
//! Replication sends what makes a replica's state equal to its primary's,
//! never what the replica would choose itself: `DDF.RESERVE` goes out with
//! the secret hash key the primary drew (`HASHKEY`), and `DDF.OBSERVE` on a
//! time window with the primary's clock (`AT ms`). Count windows need no
//! clock and are replicated verbatim. A replica answers `DDF.EXISTS` on a
//! time window without `AT` at the latest time replicated, never at its own
//! clock ([`exists_clock`]).

use crate::plan::VOCABULARY;
use crate::plan::plan_filter;
use crate::state::{DdfKey, FORMAT_VERSION, Meta, Span};
use ddf::request::{Slack, family_named, parse_size};
use ddf::{KeyedSipHasher, PortableHasher, Request, Window};
use redis_module::native_types::RedisType;
use redis_module::{
    Context, ContextFlags, NextArg, RedisError, RedisResult, RedisString, RedisValue,
    ThreadSafeContext, raw, redis_module,
};
use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

/// The cap on one key's filter state, in bytes (`ddf.max-memory`).
pub(crate) static MAX_MEMORY: AtomicI64 = AtomicI64::new(256 << 20);
/// Whether `DDF.OBSERVE` on a missing key creates it (`ddf.autocreate`).
pub(crate) static AUTOCREATE: AtomicBool = AtomicBool::new(false);
/// The time window of an autocreated key, in ms (`ddf.autocreate-within`).
pub(crate) static AUTOCREATE_WITHIN: AtomicI64 = AtomicI64::new(3_600_000);
/// Items per window an autocreated key is sized for (`ddf.autocreate-capacity`).
pub(crate) static AUTOCREATE_CAPACITY: AtomicI64 = AtomicI64::new(1_000_000);

/// The error target of an autocreated key.
const AUTOCREATE_ERROR: &str = "0.001";

/// The data type. Its name is nine characters, as Redis requires; the
/// encoding version is the payload's [`FORMAT_VERSION`].
pub(crate) static DDF_TYPE: RedisType = RedisType::new(
    "ddfwindow",
    FORMAT_VERSION as i32,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        free: Some(free),
        mem_usage: Some(mem_usage),
        digest: None,
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// Borrows the value Redis hands a type callback.
///
/// # Safety
/// `value` must be a pointer this module stored with `set_value` (a
/// `Box<DdfKey>`) or returned from `rdb_load`/`copy`, not yet freed.
unsafe fn borrow<'a>(value: *const c_void) -> &'a DdfKey {
    // SAFETY: the caller promises a live `DdfKey` behind `value`.
    unsafe { &*value.cast::<DdfKey>() }
}

unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value of this type.
    let key = unsafe { borrow(value) };
    raw::save_slice(rdb, &key.to_bytes());
}

unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    if encver != c_int::from(FORMAT_VERSION) {
        redis_module::logging::log_warning(format!(
            "ddf: refusing a ddfwindow value of encoding {encver}, this module reads {FORMAT_VERSION}"
        ));
        return std::ptr::null_mut();
    }
    let Ok(buffer) = raw::load_string_buffer(rdb) else {
        return std::ptr::null_mut();
    };
    match DdfKey::from_bytes(buffer.as_ref()) {
        Ok(key) => Box::into_raw(Box::new(key)).cast(),
        Err(e) => {
            redis_module::logging::log_warning(format!("ddf: refusing a corrupt value: {e}"));
            std::ptr::null_mut()
        }
    }
}

unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a value of this type.
    let bytes = unsafe { borrow(value) }.to_bytes();
    // SAFETY: a plain read of a function pointer set once at module load.
    if let Some(emit) = unsafe { raw::RedisModule_EmitAOF } {
        // SAFETY: "sb" takes a RedisModuleString and a (pointer, length)
        // buffer; both outlive the call, which copies them.
        unsafe {
            emit(
                aof,
                c"DDF.LOADSTATE".as_ptr(),
                c"sb".as_ptr(),
                key,
                bytes.as_ptr().cast::<std::os::raw::c_char>(),
                bytes.len(),
            );
        }
    }
}

unsafe extern "C" fn free(value: *mut c_void) {
    // SAFETY: Redis frees each value once; it is the Box this module made.
    drop(unsafe { Box::from_raw(value.cast::<DdfKey>()) });
}

unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: Redis passes a value of this type.
    let key = unsafe { borrow(value) };
    usize::try_from(key.memory_usage()).unwrap_or(usize::MAX)
}

unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a value of this type.
    let key = unsafe { borrow(value) };
    Box::into_raw(Box::new(key.clone())).cast()
}

/// A Redis error reply `ERR <message>`.
fn err(message: impl std::fmt::Display) -> RedisError {
    RedisError::String(format!("ERR {message}"))
}

/// Whether `arg` is the keyword `word`, in any case.
fn is(arg: &RedisString, word: &str) -> bool {
    arg.as_slice().eq_ignore_ascii_case(word.as_bytes())
}

/// A non-negative integer argument, named in the error.
fn unsigned(arg: Option<RedisString>, name: &str) -> Result<u64, RedisError> {
    let arg = arg.ok_or_else(|| err(format!("{name} needs a value")))?;
    unsigned_of(&arg, name)
}

/// [`unsigned`] of a borrowed argument (no copy on `DDF.OBSERVE`'s path).
fn unsigned_of(arg: &RedisString, name: &str) -> Result<u64, RedisError> {
    std::str::from_utf8(arg.as_slice())
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(|| err(format!("{name} must be a non-negative integer")))
}

/// A finite number argument, named in the error.
fn number(arg: Option<RedisString>, name: &str) -> Result<f64, RedisError> {
    let arg = arg.ok_or_else(|| err(format!("{name} needs a value")))?;
    std::str::from_utf8(arg.as_slice())
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|x| x.is_finite())
        .ok_or_else(|| err(format!("{name} must be a finite number")))
}

/// Hex of a hash key, for `HASHKEY`.
fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A hash key from `HASHKEY`'s hex.
fn from_hex(arg: &RedisString) -> Result<KeyedSipHasher, RedisError> {
    let s = arg.as_slice();
    let bad = || err("HASHKEY must be 32 hexadecimal digits");
    if !s.len().is_multiple_of(2) {
        return Err(bad());
    }
    let digit = |c: u8| (c as char).to_digit(16).ok_or_else(bad);
    let bytes = s
        .chunks(2)
        .map(|p| Ok((digit(p[0])? * 16 + digit(p[1])?) as u8))
        .collect::<Result<Vec<u8>, RedisError>>()?;
    KeyedSipHasher::from_key_bytes(&bytes).ok_or_else(bad)
}

/// The server clock in milliseconds.
fn server_ms() -> u64 {
    // SAFETY: a plain read of a function pointer set once at module load.
    let clock = unsafe { raw::RedisModule_Milliseconds };
    // SAFETY: the module API is initialised before any command runs.
    let now = clock.map_or(0, |f| unsafe { f() });
    u64::try_from(now).unwrap_or(0)
}

/// `DDF.RESERVE`'s arguments after the key, parsed.
struct Reserve {
    request: Request,
    hasher: Option<KeyedSipHasher>,
}

/// A text argument (a family name, a size), named in the error.
fn text(arg: Option<RedisString>, name: &str) -> Result<String, RedisError> {
    let arg = arg.ok_or_else(|| err(format!("{name} needs a value")))?;
    Ok(String::from_utf8_lossy(arg.as_slice()).into_owned())
}

fn parse_reserve(args: impl Iterator<Item = RedisString>) -> Result<Reserve, RedisError> {
    let mut args = args.peekable();
    let mut r = Reserve {
        request: Request::default(),
        hasher: None,
    };
    let q = &mut r.request;
    while let Some(arg) = args.next() {
        if is(&arg, "WINDOW") {
            q.window = Some(unsigned(args.next(), "WINDOW")?);
        } else if is(&arg, "WITHIN") {
            q.within_ms = Some(unsigned(args.next(), "WITHIN")?);
        } else if is(&arg, "RATE") {
            q.rate = Some(number(args.next(), "RATE")?);
        } else if is(&arg, "CAPACITY") {
            q.capacity = Some(unsigned(args.next(), "CAPACITY")?);
        } else if is(&arg, "ERROR") {
            q.fpr = Some(number(args.next(), "ERROR")?);
        } else if is(&arg, "SLACK") {
            q.slack = Some(Slack::Units(unsigned(args.next(), "SLACK")?));
        } else if is(&arg, "FILTER") {
            let name = text(args.next(), "FILTER")?;
            q.family = Some(family_named(&name, &VOCABULARY).map_err(err)?);
        } else if is(&arg, "MISSES-OK") {
            q.misses_ok = true;
        } else if is(&arg, "EXACT") {
            q.exact = true;
        } else if is(&arg, "DISTINCT") {
            q.distinct = Some(number(args.next(), "DISTINCT")?);
        } else if is(&arg, "MAXMEMORY") {
            let size = text(args.next(), "MAXMEMORY")?;
            q.max_memory = Some(parse_size(&size).map_err(|e| err(format!("MAXMEMORY: {e}")))?);
        } else if is(&arg, "HASHKEY") {
            let hex = args.next().ok_or_else(|| err("HASHKEY needs a value"))?;
            r.hasher = Some(from_hex(&hex)?);
        } else {
            return Err(err(format!(
                "unknown argument '{}' (expected WINDOW, WITHIN, RATE, CAPACITY, ERROR, SLACK, FILTER, MISSES-OK, EXACT, DISTINCT, MAXMEMORY)",
                String::from_utf8_lossy(arg.as_slice())
            )));
        }
    }
    Ok(r)
}

/// Plans and builds the key `DDF.RESERVE` asked for.
fn reserve_key(r: &Reserve) -> Result<DdfKey, RedisError> {
    let cap = u64::try_from(MAX_MEMORY.load(Ordering::Relaxed)).unwrap_or(0);
    let (choice, filter) = plan_filter(&r.request, cap).map_err(err)?;
    // The request with its defaults spelled out, as `DDF.INFO` reports it.
    let q = r.request.resolved();
    let span = match choice.window {
        Window::Count(w) => Span::Count(w),
        // The arrivals the window is sized for.
        Window::Time(ms) => Span::Time {
            ms,
            capacity: q
                .capacity
                .unwrap_or_else(|| (q.rate.unwrap_or_default() * ms as f64 / 1000.0).ceil() as u64),
        },
        Window::Unbounded => Span::Whole,
    };
    let meta = Meta {
        family: choice.family.to_string(),
        config: choice.config.clone(),
        span,
        slack: choice.slack,
        target_fpr: q.fpr.unwrap_or(0.0),
        fpr: choice.fpr,
        fnr: choice.fnr,
        misses: choice.false_negatives,
    };
    let hasher = r.hasher.clone().unwrap_or_default();
    Ok(DdfKey::new(filter, hasher, meta))
}

/// `DDF.RESERVE key [WINDOW n | WITHIN ms] [ERROR fpr] [RATE r | CAPACITY n]
/// [SLACK n] [FILTER name] [MISSES-OK] [EXACT] [DISTINCT n] [MAXMEMORY size]
/// [HASHKEY hex]`: the words of `ddf::Request`, with its defaults.
///
/// Planning can take a noticeable time (a queued candidate for a count
/// window near 2^20 sums its theory for about 0.6 s), so the caller is
/// blocked and the key planned and built on a thread of its own
/// ([`reserve_off_thread`]) while the server serves everyone else. Where a
/// client cannot be blocked (MULTI, scripts, the replication link, AOF
/// loading) the reservation runs here, as one step.
fn ddf_reserve(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 2 {
        return Err(RedisError::WrongArity);
    }
    let mut it = args.iter().skip(1).cloned();
    let name = it.next_arg()?;
    let r = parse_reserve(it)?;
    if !ctx.open_key_writable(&name).is_empty() {
        return Err(err("item exists"));
    }
    let cannot_block = ContextFlags::MULTI
        | ContextFlags::LUA
        | ContextFlags::DENY_BLOCKING
        | ContextFlags::REPLICATED
        | ContextFlags::LOADING;
    if ctx.get_flags().intersects(cannot_block) {
        let value = reserve_key(&r)?;
        store_reservation(ctx, &name, value, &args[1..], r.hasher.is_none())?;
        return Ok(RedisValue::SimpleStringStatic("OK"));
    }
    reserve_off_thread(ctx, r, &args[1..]);
    Ok(RedisValue::NoReply)
}

/// Plans and builds a reservation on a new thread while its client waits
/// (`RedisModule_BlockClient`); the result is stored back on the main
/// thread's terms, under the server lock, by [`store_reservation`], which
/// checks again that the key is still free: two reservations of one key
/// may plan at once, and only the first to finish creates it.
fn reserve_off_thread(ctx: &Context, r: Reserve, args: &[RedisString]) {
    let blocked = ctx.block_client();
    // The database the caller selected, for the key and its replication.
    // SAFETY: a plain read of a function pointer set once at module load,
    // called with the live command context.
    let db = unsafe { raw::RedisModule_GetSelectedDb.map_or(0, |f| f(ctx.ctx)) };
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_slice().to_vec()).collect();
    let thread_ctx = ThreadSafeContext::with_blocked_client(blocked);
    // The thread takes the context from here; if no thread starts, this
    // thread takes it back to answer with the error.
    let slot = Arc::new(Mutex::new(Some(thread_ctx)));
    let theirs = Arc::clone(&slot);
    let work = move || {
        let Some(thread_ctx) = theirs.lock().ok().and_then(|mut s| s.take()) else {
            return;
        };
        let reply = reserve_key(&r).and_then(|value| {
            let guard = thread_ctx.lock();
            // SAFETY: the server lock is held (`guard`), and the context is
            // the one `lock` returned; selecting a database only sets its
            // client's current database.
            unsafe {
                if let Some(select) = raw::RedisModule_SelectDb {
                    select(guard.ctx, db);
                }
            }
            let strings: Vec<RedisString> = args
                .iter()
                .map(|a| guard.create_string(a.as_slice()))
                .collect();
            store_reservation(&guard, &strings[0], value, &strings, r.hasher.is_none())
                .map(|()| RedisValue::SimpleStringStatic("OK"))
        });
        thread_ctx.reply(reply);
    };
    if let Err(e) = std::thread::Builder::new()
        .name("ddf-reserve".into())
        .spawn(work)
        && let Some(thread_ctx) = slot.lock().ok().and_then(|mut s| s.take())
    {
        thread_ctx.reply(Err(err(format!("cannot start a planning thread: {e}"))));
    }
}

/// Creates the key `name` holding `value` unless it exists by now, and
/// replicates the reservation with the hash key spelled out when the caller
/// gave none (`drew_key`), so the replica and the AOF hash as this server
/// does.
fn store_reservation(
    ctx: &Context,
    name: &RedisString,
    value: DdfKey,
    args: &[RedisString],
    drew_key: bool,
) -> Result<(), RedisError> {
    let key = ctx.open_key_writable(name);
    if !key.is_empty() {
        return Err(err("item exists"));
    }
    let hex = to_hex(&value.hash_key());
    key.set_value(&DDF_TYPE, value)?;
    replicate_reserve(ctx, args, drew_key.then_some(hex.as_str()));
    Ok(())
}

/// Replicates a reservation with the hash key spelled out, so the replica
/// hashes as the primary does.
fn replicate_reserve(ctx: &Context, args: &[RedisString], hex: Option<&str>) {
    let mut out: Vec<&[u8]> = args.iter().map(RedisString::as_slice).collect();
    if let Some(hex) = hex {
        out.push(b"HASHKEY");
        out.push(hex.as_bytes());
    }
    ctx.replicate("DDF.RESERVE", out.as_slice());
}

/// Splits `[AT ms] item …` into the caller's clock and the items.
fn clock_and_items(args: &[RedisString]) -> Result<(Option<u64>, Vec<&[u8]>), RedisError> {
    let (at, items) = match args {
        [first, ms, rest @ ..] if is(first, "AT") && !rest.is_empty() => {
            (Some(unsigned_of(ms, "AT")?), rest)
        }
        _ => (None, args),
    };
    if items.is_empty() {
        return Err(RedisError::WrongArity);
    }
    Ok((at, items.iter().map(RedisString::as_slice).collect()))
}

/// Replies 0/1 per answer.
fn answers(bits: Vec<bool>) -> RedisValue {
    RedisValue::Array(
        bits.into_iter()
            .map(|b| RedisValue::Integer(b.into()))
            .collect(),
    )
}

/// `DDF.OBSERVE key [AT ms] item [item …]`.
fn ddf_observe(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let (at, items) = clock_and_items(&args[2..])?;
    let key = ctx.open_key_writable(&args[1]);
    let mut created = None;
    if key.is_empty() {
        // Relaxed: a configuration value read alone, ordering nothing else.
        if !AUTOCREATE.load(Ordering::Relaxed) {
            return Err(err(
                "no such key: DDF.RESERVE it first (or set ddf.autocreate yes)",
            ));
        }
        // Relaxed: configuration values each read alone, ordering nothing else.
        let within = AUTOCREATE_WITHIN.load(Ordering::Relaxed).to_string();
        let capacity = AUTOCREATE_CAPACITY.load(Ordering::Relaxed).to_string();
        let spec: Vec<RedisString> = [
            "WITHIN",
            &within,
            "CAPACITY",
            &capacity,
            "ERROR",
            AUTOCREATE_ERROR,
        ]
        .into_iter()
        .map(|s| ctx.create_string(s))
        .collect();
        let r = parse_reserve(spec.iter().cloned())?;
        let value = reserve_key(&r)?;
        let hex = to_hex(&value.hash_key());
        key.set_value(&DDF_TYPE, value)?;
        let mut full = vec![args[1].clone()];
        full.extend(spec);
        created = Some((full, hex));
    }
    let value = key
        .get_value::<DdfKey>(&DDF_TYPE)
        .map_err(|_| RedisError::WrongType)?
        .ok_or_else(|| err("no such key"))?;
    let timed = value.is_timed();
    if at.is_some() && !timed {
        return Err(err("AT applies to time windows (WITHIN)"));
    }
    let now = at.unwrap_or_else(server_ms);
    let reply = value.observe(&items, now);
    if let Some((full, hex)) = &created {
        replicate_reserve(ctx, full, Some(hex));
    }
    if timed && at == Some(value.clock()) && created.is_none() {
        // The call already names the clock the filter ran at: sent as it
        // came, it replays exactly (and costs no copy of its items).
        ctx.replicate_verbatim();
    } else if timed {
        // The replica applies the primary's clock, never its own.
        let now = value.clock().to_string();
        let mut out: Vec<&[u8]> = vec![args[1].as_slice(), b"AT", now.as_bytes()];
        out.extend(items.iter().copied());
        ctx.replicate("DDF.OBSERVE", out.as_slice());
    } else if created.is_some() {
        let out: Vec<&[u8]> = args[1..].iter().map(RedisString::as_slice).collect();
        ctx.replicate("DDF.OBSERVE", out.as_slice());
    } else {
        ctx.replicate_verbatim();
    }
    Ok(answers(reply))
}

/// `DDF.EXISTS key [AT ms] item [item …]`: a missing key has seen nothing.
fn ddf_exists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let (at, items) = clock_and_items(&args[2..])?;
    let key = ctx.open_key(&args[1]);
    let Some(value) = key
        .get_value::<DdfKey>(&DDF_TYPE)
        .map_err(|_| RedisError::WrongType)?
    else {
        return Ok(answers(vec![false; items.len()]));
    };
    if at.is_some() && !value.is_timed() {
        return Err(err("AT applies to time windows (WITHIN)"));
    }
    Ok(answers(value.exists(&items, exists_clock(ctx, at, value))))
}

/// The time `DDF.EXISTS` answers a window at: the caller's `AT`, else on a
/// replica the latest time replicated from the primary, else the server
/// clock.
///
/// A replica's state is its primary's as of the last write replicated, so
/// it answers as the primary did then. Its own clock could only disagree:
/// it may run ahead of the primary's and forget items the primary still
/// holds, and on a key driven by the caller's clock (`AT`, in the caller's
/// unit) it is not even the same unit. Like every replica read, the answer
/// is stale by the replication lag; between writes it does not age.
fn exists_clock(ctx: &Context, at: Option<u64>, value: &DdfKey) -> u64 {
    match at {
        Some(ms) => ms,
        None if ctx.get_flags().contains(ContextFlags::SLAVE) => value.clock(),
        None => server_ms(),
    }
}

/// `DDF.INFO key`: field, value pairs.
fn ddf_info(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let value = key
        .get_value::<DdfKey>(&DDF_TYPE)
        .map_err(|_| RedisError::WrongType)?
        .ok_or_else(|| err("not found"))?;
    let m = value.meta();
    let text = |s: &str| RedisValue::BulkString(s.to_string());
    let int = |x: u64| RedisValue::Integer(i64::try_from(x).unwrap_or(i64::MAX));
    let (kind, window, capacity) = match m.span {
        Span::Count(w) => ("count", w, None),
        Span::Time { ms, capacity } => ("time", ms, Some(capacity)),
        Span::Whole => ("whole stream", 0, None),
    };
    let mut out = vec![
        text("Family"),
        text(&m.family),
        text("Config"),
        text(&m.config),
        text("Window"),
        text(kind),
        text(if capacity.is_some() {
            "Within ms"
        } else {
            "Items"
        }),
        int(window),
        text("Slack"),
        int(m.slack),
        text("Capacity"),
        capacity.map_or(RedisValue::Null, int),
        text("Target FPR"),
        text(&format!("{:e}", m.target_fpr)),
        text("Predicted FPR"),
        text(&format!("{:e}", m.fpr)),
        text("Predicted FNR"),
        text(&format!("{:e}", m.fnr)),
        text("Misses possible"),
        int(m.misses.into()),
        text("Filter bytes"),
        int(value.filter_bytes()),
        text("Memory usage"),
        int(value.memory_usage()),
        text("Observed"),
        int(value.items()),
        text("Clock ms"),
        int(value.clock()),
    ];
    out.shrink_to_fit();
    Ok(RedisValue::Array(out))
}

/// `DDF.LOADSTATE key payload`: creates a key from a payload of RDB, `DUMP`
/// or the AOF (what AOF rewrite emits, since items cannot be replayed).
fn ddf_loadstate(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key_writable(&args[1]);
    if !key.is_empty() {
        return Err(err("item exists"));
    }
    let value = DdfKey::from_bytes(args[2].as_slice())
        .map_err(|e| err(format!("refusing the payload: {e}")))?;
    // Relaxed: a configuration value read alone, ordering nothing else.
    let cap = u64::try_from(MAX_MEMORY.load(Ordering::Relaxed)).unwrap_or(0);
    if value.filter_bytes() > cap {
        return Err(err(format!(
            "the filter needs {} bytes, over ddf.max-memory = {cap}",
            value.filter_bytes()
        )));
    }
    key.set_value(&DDF_TYPE, value)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `DDF.MERGE dest src [src …]`: merges the sources into `dest`, all
/// reserved alike (one window, parameters and hash key; `HASHKEY` gives
/// keys one). Every merge is tried on a copy first, so a refusal leaves
/// `dest` as it was; the reply names the source and the difference.
fn ddf_merge(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    // Copies: `dest` may be a source too.
    let mut sources = Vec::with_capacity(args.len() - 2);
    for name in &args[2..] {
        let key = ctx.open_key(name);
        let value = key
            .get_value::<DdfKey>(&DDF_TYPE)
            .map_err(|_| RedisError::WrongType)?
            .ok_or_else(|| err(format!("no such key: {}", name.to_string_lossy())))?;
        sources.push(value.clone());
    }
    let dest = ctx.open_key_writable(&args[1]);
    let value = dest
        .get_value::<DdfKey>(&DDF_TYPE)
        .map_err(|_| RedisError::WrongType)?
        .ok_or_else(|| err("no such key: DDF.RESERVE the destination first"))?;
    let mut merged = value.clone();
    for (name, source) in args[2..].iter().zip(&sources) {
        merged
            .merge(source)
            .map_err(|e| err(format!("refusing to merge {}: {e}", name.to_string_lossy())))?;
    }
    *value = merged;
    // The replica holds the same keys: the same merge gives the same state.
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// Declares that the module handles RDB read errors itself: a short or
/// corrupt value makes `rdb_load` return NULL (RESTORE replies "Bad data
/// format") instead of Redis aborting the server.
fn init(ctx: &Context, _args: &[RedisString]) -> redis_module::Status {
    // SAFETY: a plain read of a function pointer set once at module load.
    if let Some(set) = unsafe { raw::RedisModule_SetModuleOptions } {
        // SAFETY: `ctx` is the live load context.
        unsafe { set(ctx.ctx, raw::REDISMODULE_OPTIONS_HANDLE_IO_ERRORS as c_int) };
    }
    redis_module::Status::Ok
}

redis_module! {
    name: "ddf",
    version: 1,
    allocator: (crate::alloc::ServerAlloc, crate::alloc::ServerAlloc),
    data_types: [DDF_TYPE],
    init: init,
    commands: [
        ["ddf.reserve", ddf_reserve, "write deny-oom", 1, 1, 1, ""],
        ["ddf.observe", ddf_observe, "write deny-oom", 1, 1, 1, ""],
        ["ddf.exists", ddf_exists, "readonly", 1, 1, 1, ""],
        ["ddf.info", ddf_info, "readonly", 1, 1, 1, ""],
        ["ddf.loadstate", ddf_loadstate, "write deny-oom", 1, 1, 1, ""],
        ["ddf.merge", ddf_merge, "write deny-oom", 1, -1, 1, ""],
    ],
    configurations: [
        i64: [
            ["max-memory", &MAX_MEMORY, 256 << 20, 1, i64::MAX, redis_module::configuration::ConfigurationFlags::DEFAULT, None],
            ["autocreate-within", &AUTOCREATE_WITHIN, 3_600_000, 1, 1 << 40, redis_module::configuration::ConfigurationFlags::DEFAULT, None],
            ["autocreate-capacity", &AUTOCREATE_CAPACITY, 1_000_000, 1, 1 << 40, redis_module::configuration::ConfigurationFlags::DEFAULT, None],
        ],
        string: [],
        bool: [
            ["autocreate", &AUTOCREATE, false, redis_module::configuration::ConfigurationFlags::DEFAULT, None],
        ],
        enum: [],
        module_args_as_configuration: true,
    ]
}
