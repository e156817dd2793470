use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::{model::Model, native::NativeDut, stimulus::lockstep, vdut::VerilatorDut};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = PmcgConfig::parse_kv(args.iter().map(|s| s.as_str())).unwrap();
    let mut n = NativeDut::new(&cfg).unwrap();
    let t = std::time::Instant::now();
    let mut v = VerilatorDut::new(&cfg).unwrap();
    eprintln!("verilator build {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let mut m = Model::new(&cfg);
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let r = lockstep(&cfg, seed, 20000, &mut [&mut m, &mut n, &mut v]);
    eprintln!(
        "{:?} in {:?}",
        r.as_ref().map_err(|e| e.to_string()),
        t.elapsed()
    );
}
