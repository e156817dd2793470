//! Development helper: `cargo run --release -p pmcg-fpga --example try_build -- KEY=VALUE.. OUT [SEED]`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kv, rest): (Vec<_>, Vec<_>) = args.iter().partition(|a| a.contains('='));
    let cfg = pmcg_hdl::config::PmcgConfig::parse_kv(kv.iter().map(|s| s.as_str())).unwrap();
    let out = std::path::PathBuf::from(rest[0]);
    let seed = rest.get(1).map(|s| s.parse().unwrap());
    let t = std::time::Instant::now();
    match pmcg_fpga::top::build(&cfg, &out, seed) {
        Ok(r) => println!("{r:?} in {:?}", t.elapsed()),
        Err(e) => println!("error: {e} in {:?}", t.elapsed()),
    }
}
