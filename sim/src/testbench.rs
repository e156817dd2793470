//! `gen --testbench SCRIPT`: a script turned into a self-checking, plain Verilog-2005 testbench
//! (`<top>_tb.v`) that an integrator runs in their own simulator on the emitted `<top>.v`.
//!
//! ```text
//!   Script ──run() on Driver<Recorder<Model>> (trace on)──► per cycle: inputs, model outputs
//!      │                                                     trace: command lines, msi_slave
//!      ▼
//!   <top>_tb.v:  clock, 3 reset cycles, then one `cycle(...)` call per run of equal cycles:
//!                drive the inputs at the falling edge, compare every output with the model's;
//!                <top>_tb_msi: an AXI4-Lite completer with the script's msi_slave delays and
//!                response, the same algorithm as sim/src/axi.rs; its AWREADY/WREADY/BVALID/
//!                BRESP are compared with those the model run saw as well.
//!   prints "FAIL cycle C (line L): PORT expected E got A" and finally "N passed, M failed"
//!   (one check per cycle), then $finish.
//! ```
//! The reference model gives every expected value, so the bench checks every output on every
//! cycle (read data, IRQ pulses, MSI writes, CAPT_ACK, OVF_EXPORT), not only the script's own
//! expectations (which the model run must pass, or no testbench is written).

use crate::model::Model;
use crate::pins::{Driver, Dut, PinInputs, PinOutputs};
use crate::script::{Command, Script};
use pmcg_synth::wrapper::{ports, Dir};
use std::fmt::Write;

/// Cycles PRESETn is held low before the recorded run (the design's registers start unknown
/// in a 4-state simulator; the model starts in its reset state).
pub const PRE_RESET_CYCLES: u32 = 3;

/// A Dut that records every cycle of the wrapped one.
struct Recorder<D: Dut> {
    dut: D,
    cycles: Vec<(PinInputs, PinOutputs)>,
}

impl<D: Dut> Dut for Recorder<D> {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        let out = self.dut.step(inp);
        self.cycles.push((inp.clone(), out));
        out
    }
    fn name(&self) -> &'static str {
        self.dut.name()
    }
}

/// Why no testbench was written.
#[derive(Debug)]
pub enum TestbenchError {
    /// The script's own expectations fail on the reference model: (failures).
    ModelFailed(Vec<String>),
    Io(std::io::Error),
}

impl std::fmt::Display for TestbenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestbenchError::ModelFailed(v) => write!(
                f,
                "the script fails on the reference model, so it cannot give expected values: {}",
                v.join("; ")
            ),
            TestbenchError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TestbenchError {}

/// The value of input port `name` in `inp` (None: not a recorded input).
fn input_value(name: &str, inp: &PinInputs) -> Option<u64> {
    let v = match name {
        "PRESETn" => inp.presetn as u64,
        "PSEL" => inp.psel as u64,
        "PENABLE" => inp.penable as u64,
        "PWRITE" => inp.pwrite as u64,
        "PADDR" => inp.paddr as u64,
        "PWDATA" => inp.pwdata as u64,
        "PSTRB" => inp.pstrb as u64,
        "PPROT" => inp.pprot as u64,
        "PNSE" => inp.pnse as u64,
        "CAPT_REQ" => inp.capt_req as u64,
        "AWREADY" => inp.awready as u64,
        "WREADY" => inp.wready as u64,
        "BVALID" => inp.bvalid as u64,
        "BRESP" => inp.bresp as u64,
        lane if lane.starts_with("LANE") => {
            let (l, field) = lane[4..].split_once('_')?;
            let l = &inp.lanes[l.parse::<usize>().ok()?];
            match field {
                "VALID" => l.valid as u64,
                "EVENTS" => l.events as u64,
                "SID" => l.sid as u64,
                "SS" => l.ss.code() as u64,
                "NOSID" => l.nosid as u64,
                "PARTID" => l.partid as u64,
                "PMG" => l.pmg as u64,
                "MPAM_SP" => l.mpam_sp.code() as u64,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(v)
}

/// The value of output port `name` in `out`.
fn output_value(name: &str, out: &PinOutputs) -> Option<u64> {
    Some(match name {
        "PRDATA" => out.prdata as u64,
        "PREADY" => out.pready as u64,
        "PSLVERR" => out.pslverr as u64,
        "IRQ" => out.irq as u64,
        "AWVALID" => out.awvalid as u64,
        "AWADDR" => out.awaddr,
        "AWPROT" => out.awprot as u64,
        "WVALID" => out.wvalid as u64,
        "WDATA" => out.wdata as u64,
        "WSTRB" => out.wstrb as u64,
        "BREADY" => out.bready as u64,
        "MSI_MEMATTR" => out.msi_memattr as u64,
        "MSI_SH" => out.msi_sh as u64,
        "MSI_PARTID" => out.msi_partid as u64,
        "MSI_PMG" => out.msi_pmg as u64,
        "MSI_MPAM_NS" => out.msi_mpam_ns as u64,
        "CAPT_ACK" => out.capt_ack as u64,
        "OVF_EXPORT" => out.ovf_export,
        _ => return None,
    })
}

/// Inputs the completer drives (compared, not driven, by the stimulus).
const COMPLETER_PORTS: [&str; 4] = ["AWREADY", "WREADY", "BVALID", "BRESP"];

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The testbench of `script` for the top module `top` (emitted by `pmcg_synth::emit_verilog`
/// for `script.config`).
pub fn testbench(script: &Script, script_name: &str, top: &str) -> Result<String, TestbenchError> {
    let cfg = &script.config;
    let recorder = Recorder {
        dut: Model::new(cfg),
        cycles: Vec::new(),
    };
    let mut driver = Driver::new(recorder, cfg.lanes as usize);
    // As `smmu-pmcg sim`: one reset cycle, not numbered, before the first command.
    driver.reset(1);
    driver.cycle = 0;
    let mut trace = Vec::new();
    let report =
        crate::script::run(script, &mut driver, true, &mut trace).map_err(TestbenchError::Io)?;
    if !report.ok() {
        return Err(TestbenchError::ModelFailed(report.failures));
    }
    let cycles = driver.dut.cycles;
    // Which script line each cycle belongs to, and when the MSI completer's setting changes:
    // from the trace ("cycle N: ..." as each command starts; documented in script.rs).
    let trace = String::from_utf8_lossy(&trace).to_string();
    // Command lines only: `irq pulse` lines come as they happen; read64/write64 print one line
    // per word; expect irq/msi print none.
    let starts: Vec<u64> = trace
        .lines()
        .filter(|l| !l.ends_with(": irq pulse"))
        .filter_map(|l| l.strip_prefix("cycle ")?.split_once(':')?.0.parse().ok())
        .collect();
    let mut line_of = vec![0usize; cycles.len()];
    let mut msi_settings: Vec<(u64, u32, u32, u32, u8)> = Vec::new();
    let mut k = 0;
    for (line, cmd) in &script.lines {
        let lines = match cmd {
            Command::ExpectIrq(_) | Command::ExpectMsi { .. } => 0,
            Command::Read64 { .. } | Command::Write64 { .. } => 2,
            _ => 1,
        };
        if lines == 0 {
            continue;
        }
        let Some(&start) = starts.get(k) else { break };
        k += lines;
        // Record index = script cycle + 1 (the unnumbered reset cycle is index 0).
        for slot in line_of.iter_mut().skip(start as usize + 1) {
            *slot = *line;
        }
        if let Command::MsiSlave { aw, w, b, resp } = cmd {
            msi_settings.push((start + 1, *aw, *w, *b, *resp));
        }
    }
    let all_ports = ports(cfg);
    let ins: Vec<_> = all_ports
        .iter()
        .filter(|p| p.dir == Dir::In && p.name != "PCLK")
        .collect();
    let outs: Vec<_> = all_ports.iter().filter(|p| p.dir == Dir::Out).collect();
    let tb = format!("{top}_tb");
    let mut o = String::new();
    writeln!(
        o,
        "// Self-checking testbench of {script_name} for {top}, generated by smmu-pmcg {} from the\n// reference model. Do not edit. Verilog-2005: iverilog -g2005 -o tb {top}.v {tb}.v && vvp tb\n// config: {}\n`timescale 1ns/1ps",
        env!("CARGO_PKG_VERSION"),
        cfg.summary()
    )
    .unwrap();
    completer(&mut o, &tb);
    writeln!(o, "\nmodule {tb};").unwrap();
    o += "  reg PCLK = 1'b0;\n  always #5 PCLK = ~PCLK;\n";
    for p in &ins {
        if cfg.msi && COMPLETER_PORTS.contains(&p.name.as_str()) {
            writeln!(o, "  wire [{}:0] {};", p.width - 1, p.name).unwrap();
        } else {
            writeln!(o, "  reg [{}:0] {} = 0;", p.width - 1, p.name).unwrap();
        }
    }
    for p in &outs {
        writeln!(o, "  wire [{}:0] {};", p.width - 1, p.name).unwrap();
    }
    o += "  integer passed = 0, failed = 0, cyc = 0, errors;\n";
    writeln!(o, "\n  {top} dut (\n    .PCLK(PCLK),").unwrap();
    let conns: Vec<String> = ins
        .iter()
        .chain(outs.iter())
        .map(|p| format!("    .{0}({0})", p.name))
        .collect();
    o += &conns.join(",\n");
    o += "\n  );\n";
    if cfg.msi {
        writeln!(
            o,
            "\n  reg [31:0] msi_aw = 0, msi_w = 0, msi_b = 0;\n  reg [1:0] msi_resp = 0;\n  {tb}_msi msi (\n    .clk(PCLK), .presetn(PRESETn), .aw_delay(msi_aw), .w_delay(msi_w), .b_delay(msi_b), .resp(msi_resp),\n    .awvalid(AWVALID), .wvalid(WVALID), .bready(BREADY),\n    .awready(AWREADY), .wready(WREADY), .bvalid(BVALID), .bresp(BRESP)\n  );"
        )
        .unwrap();
    }
    // The per-cycle task: inputs, expected outputs, repeat count, script line.
    let mut args: Vec<String> = Vec::new();
    for p in &ins {
        args.push(format!("input [{}:0] i_{}", p.width - 1, p.name));
    }
    for p in &outs {
        args.push(format!("input [{}:0] e_{}", p.width - 1, p.name));
    }
    o +=
        "\n  // One call = `n` cycles: at each falling edge drive the inputs, check the outputs.\n";
    writeln!(
        o,
        "  task cycle;\n    {};\n    input integer n;\n    input integer line;\n    integer k;\n    begin\n      for (k = 0; k < n; k = k + 1) begin\n        @(negedge PCLK);",
        args.join(";\n    ")
    )
    .unwrap();
    for p in &ins {
        if cfg.msi && COMPLETER_PORTS.contains(&p.name.as_str()) {
            continue;
        }
        writeln!(o, "        {0} = i_{0};", p.name).unwrap();
    }
    o += "        #1 errors = 0;\n";
    let mut checked: Vec<(&str, String)> = outs
        .iter()
        .map(|p| (p.name.as_str(), format!("e_{}", p.name)))
        .collect();
    if cfg.msi {
        for p in &ins {
            if COMPLETER_PORTS.contains(&p.name.as_str()) {
                checked.push((p.name.as_str(), format!("i_{}", p.name)));
            }
        }
    }
    for (name, exp) in &checked {
        writeln!(
            o,
            "        if ({name} !== {exp}) begin\n          errors = errors + 1;\n          if (failed < 20) $display(\"FAIL cycle %0d (line %0d): {name} expected %h got %h\", cyc, line, {exp}, {name});\n        end"
        )
        .unwrap();
    }
    o += "        if (errors == 0) passed = passed + 1; else failed = failed + 1;\n        cyc = cyc + 1;\n      end\n    end\n  endtask\n";
    // Stimulus.
    o += "\n  initial begin\n";
    writeln!(
        o,
        "    PRESETn = 1'b0;\n    repeat ({PRE_RESET_CYCLES}) @(negedge PCLK);"
    )
    .unwrap();
    let mut settings = msi_settings.iter().peekable();
    let mut i = 0;
    while i < cycles.len() {
        while let Some(&&(at, aw, w, b, resp)) = settings.peek() {
            if at as usize > i {
                break;
            }
            // Applied before the cycle's falling edge: the completer drives with it this cycle.
            writeln!(
                o,
                "    msi_aw = {aw}; msi_w = {w}; msi_b = {b}; msi_resp = 2'd{resp};"
            )
            .unwrap();
            settings.next();
        }
        let mut n = 1;
        let next_setting = settings.peek().map(|s| s.0 as usize).unwrap_or(usize::MAX);
        while i + n < cycles.len()
            && cycles[i + n] == cycles[i]
            && line_of[i + n] == line_of[i]
            && i + n < next_setting
        {
            n += 1;
        }
        let (inp, out) = &cycles[i];
        let mut vals = Vec::new();
        for p in &ins {
            let v = input_value(&p.name, inp).unwrap_or_else(|| panic!("no input {}", p.name));
            vals.push(format!("{}'h{:x}", p.width, v & mask(p.width)));
        }
        for p in &outs {
            let v = output_value(&p.name, out).unwrap_or_else(|| panic!("no output {}", p.name));
            vals.push(format!("{}'h{:x}", p.width, v & mask(p.width)));
        }
        writeln!(o, "    cycle({}, {n}, {});", vals.join(", "), line_of[i]).unwrap();
        i += n;
    }
    o += "    $display(\"%0d passed, %0d failed\", passed, failed);\n    $finish;\n  end\nendmodule\n";
    Ok(o)
}

/// The MSI completer: sim/src/axi.rs `MsiResponder` (fixed delays) in Verilog. READY rises once
/// its VALID has been high for the delay; BVALID `b_delay` cycles after both handshakes; a reset
/// edge (PRESETn registered by the PMCG) abandons the transaction in flight.
fn completer(o: &mut String, tb: &str) {
    writeln!(
        o,
        "
module {tb}_msi (
  input clk, input presetn,
  input [31:0] aw_delay, input [31:0] w_delay, input [31:0] b_delay, input [1:0] resp,
  input awvalid, input wvalid, input bready,
  output awready, output wready, output bvalid, output [1:0] bresp
);
  reg [31:0] aw_seen = 0, w_seen = 0, b_wait = 0;
  reg aw_done = 0, w_done = 0, bv = 0, reset_next = 0;
  reg [1:0] br = 0;
  reg na, nw, nb, clear;
  assign awready = !aw_done && aw_seen >= aw_delay;
  assign wready = !w_done && w_seen >= w_delay;
  assign bvalid = bv;
  assign bresp = bv ? br : 2'b00;
  always @(posedge clk) begin
    na = aw_done; nw = w_done; nb = bv; clear = 0;
    if (awvalid && !aw_done) begin
      if (awready) na = 1; else aw_seen <= aw_seen + 1;
    end
    if (wvalid && !w_done) begin
      if (wready) nw = 1; else w_seen <= w_seen + 1;
    end
    if (bv && bready) clear = 1;
    else if (na && nw && !bv) begin
      if (b_wait >= b_delay) begin nb = 1; br <= resp; end
      else b_wait <= b_wait + 1;
    end
    if (clear || reset_next) begin
      aw_done <= 0; w_done <= 0; bv <= 0; aw_seen <= 0; w_seen <= 0; b_wait <= 0;
    end else begin
      aw_done <= na; w_done <= nw; bv <= nb;
    end
    reset_next <= !presetn;
  end
endmodule"
    )
    .unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_failing_on_the_model_gives_no_testbench() {
        let script = crate::script::parse("config counters=4\nread 0xE04 expect 1\n").unwrap();
        match testbench(&script, "t.pmcg", "smmu_pmcg") {
            Err(TestbenchError::ModelFailed(f)) => assert!(f[0].starts_with("line 2"), "{f:?}"),
            other => panic!("expected ModelFailed, got {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn msi_settings_and_lines_follow_the_script() {
        let text =
            "config counters=4 counter_bits=32\nwrite64 0xE58 0x1000\nmsi_slave aw=2 b=3\nidle 2\n";
        let script = crate::script::parse(text).unwrap();
        let tb = testbench(&script, "t.pmcg", "smmu_pmcg").unwrap();
        // write64 takes cycles 0-3 (record 1-4): the setting applies from record 5.
        assert!(
            tb.contains("msi_aw = 2; msi_w = 0; msi_b = 3; msi_resp = 2'd0;"),
            "{tb}"
        );
        assert!(
            tb.contains(", 2, 4);"),
            "idle 2 on line 4 as one call of 2 cycles:\n{tb}"
        );
    }
}
