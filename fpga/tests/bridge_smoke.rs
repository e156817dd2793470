use pmcg_fpga::board::BoardParams;
use pmcg_fpga::host::{BridgeClient, SimUart};
use pmcg_fpga::map;
use pmcg_fpga::sim::NativeBoard;

#[test]
fn native_reads_id() {
    let cfg = pmcg_hdl::config::PmcgConfig::parse_kv(["counters=4", "counter_bits=32"]).unwrap();
    let p = BoardParams::sim(4);
    let board = NativeBoard::new(&cfg, &p).unwrap();
    let mut b = BridgeClient::new(SimUart::new(Box::new(board), 4));
    let t = std::time::Instant::now();
    assert_eq!(b.read(map::ID.addr()).unwrap(), map::ID_VALUE);
    println!("cycles {} in {:?}", b.transport.cycles, t.elapsed());
    assert_eq!(b.read(0xE00).unwrap() & 0xFF, 3);
    b.write(map::lane_addr(0, map::lane::SEED), 0x1234).unwrap();
    assert_eq!(b.read(map::lane_addr(0, map::lane::SEED)).unwrap(), 0x1234);
    println!("cycles {} in {:?}", b.transport.cycles, t.elapsed());
}
