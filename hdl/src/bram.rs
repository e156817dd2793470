//! `Bram`: a block RAM of 2^A rows (64 by default) with one clock, one read port and one write port, whose read at a
//! write to the same row is undefined (and poisoned in simulation), so Yosys maps it to iCE40
//! block RAM without read-first emulation.
//!
//! ```text
//!   read_address ──► (edge) read_data := mem[read_address]
//!                    (at a write to that row: !old in simulation, undefined on the FPGA)
//!   write_address, write_data, write_enable ──► (edge) mem[write_address] := write_data
//! ```
//!
//! rust-hdl's `RAM` reads the old row at a same-edge write, which the iCE40's block RAM does not
//! promise, so Yosys 0.23 emulates it (it delays the write a cycle through registers of its
//! data, address and enable, and muxes the delayed data onto the read when the addresses
//! match): 186 flip-flops and 71 LUTs for the four RAMs of 16x32. The register file's EVTYPER
//! and SMR readback copies use this block instead: they are read at every edge from the live
//! PADDR but used only from a setup edge (a transfer's access cycle), and written only at
//! access edges, so a read at a write's edge is never used. The Verilog tells Yosys
//! `no_rw_check`; to keep that claim tested, the native model and the simulated Verilog
//! (`ifndef SYNTHESIS`; Yosys defines SYNTHESIS) return the inverted old row at such an edge,
//! so a user of it would fail its tests and the differential against the reference model.
//! The upper-word banks (hi_bank.rs) keep rust-hdl's `RAM`: their write port is fed by the
//! carry service's adder and a capture's copy-on-write select, and without the emulation's
//! registers in front of the block RAM those became the critical paths (measured with the
//! banks on this block: 16x64 80.5-92.4 MHz on seeds 1-3, against 98.6-101.9 with them on
//! `RAM`). Rows start at 0 in simulation (like rust-hdl's `RAM`); the readback copies never
//! return a row not written since reset (`FreshFlags`).

use rust_hdl::prelude::*;

/// Address bits of the register file's `Bram`s (64 rows: the largest configuration).
pub const BRAM_ADDR_BITS: usize = 6;

/// A hand-written primitive (like `MatchRegs`): `update` and `hdl` are the same logic. `A`
/// address bits (the board's FIFOs take other depths: fpga/src/fifo.rs).
pub struct Bram<const W: usize, const A: usize = BRAM_ADDR_BITS> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<A>>,
    /// The row read at the last edge (registered, like the block RAM's output).
    pub read_data: Signal<Out, Bits<W>>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    rows: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for Bram<W, A> {
    fn default() -> Self {
        Bram {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            rows: vec![Bits::<W>::default(); 1 << A],
        }
    }
}

impl<const W: usize, const A: usize> Logic for Bram<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let ra = self.read_address.val().index();
            let old = self.rows[ra];
            let collides = self.write_enable.val() && self.write_address.val().index() == ra;
            self.read_data.next = if collides { !old } else { old };
            if self.write_enable.val() {
                self.rows[self.write_address.val().index()] = self.write_data.val();
            }
        }
    }
    fn connect(&mut self) {
        self.read_data.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *)
reg[{msb}:0] mem[{last}:0];
integer i;

initial begin
   for (i = 0; i <= {last}; i = i + 1) mem[i] = {W}'h0;
end

always @(posedge clock) begin
`ifdef SYNTHESIS
   read_data <= mem[read_address];
`else
   // A read at a write to the same row is undefined on the FPGA: poisoned here (module docs).
   if (write_enable && (write_address == read_address))
      read_data <= ~mem[read_address];
   else
      read_data <= mem[read_address];
`endif
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            msb = W - 1,
            last = (1usize << A) - 1,
        ))
    }
}

impl<const W: usize, const A: usize> Block for Bram<W, A> {
    fn connect_all(&mut self) {
        self.connect();
        self.clock.connect_all();
        self.read_address.connect_all();
        self.read_data.connect_all();
        self.write_address.connect_all();
        self.write_data.connect_all();
        self.write_enable.connect_all();
    }
    fn update_all(&mut self) {
        self.update();
        self.clock.update_all();
        self.read_address.update_all();
        self.read_data.update_all();
        self.write_address.update_all();
        self.write_data.update_all();
        self.write_enable.update_all();
    }
    fn has_changed(&self) -> bool {
        self.clock.has_changed()
            || self.read_address.has_changed()
            || self.read_data.has_changed()
            || self.write_address.has_changed()
            || self.write_data.has_changed()
            || self.write_enable.has_changed()
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        self.clock.accept("clock", probe);
        self.read_address.accept("read_address", probe);
        self.read_data.accept("read_data", probe);
        self.write_address.accept("write_address", probe);
        self.write_data.accept("write_data", probe);
        self.write_enable.accept("write_enable", probe);
        probe.visit_end_scope(name, self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::settle;

    /// One edge with a read of `ra` and, if `w` is given, a write of (address, data); returns
    /// the registered read data after it.
    fn edge(uut: &mut Bram<16>, ra: u64, w: Option<(u64, u64)>) -> u64 {
        uut.clock.next = Clock::from(false);
        uut.read_address.next = ra.into();
        uut.write_enable.next = w.is_some();
        let (wa, wd) = w.unwrap_or((0, 0));
        uut.write_address.next = wa.into();
        uut.write_data.next = wd.into();
        settle(uut, "Bram");
        uut.clock.next = Clock::from(true);
        settle(uut, "Bram");
        uut.read_data.val().index() as u64
    }

    /// Rows start at 0, a write lands at its edge, a read returns the row as of its edge, and a
    /// read at a write to the same row returns the inverted old row (the poison); a write to
    /// another row leaves the read alone.
    #[test]
    fn reads_see_the_row_before_the_edge_and_a_colliding_read_is_poisoned() {
        let mut uut = Bram::<16>::default();
        uut.connect_all();
        assert_eq!(edge(&mut uut, 5, None), 0, "rows start at 0");
        assert_eq!(
            edge(&mut uut, 4, Some((5, 0x1234))),
            0,
            "another row's write"
        );
        assert_eq!(edge(&mut uut, 5, None), 0x1234, "the write landed");
        assert_eq!(
            edge(&mut uut, 5, Some((5, 0xBEEF))),
            !0x1234u64 & 0xFFFF,
            "a read at a write to its row is poisoned"
        );
        assert_eq!(edge(&mut uut, 5, Some((63, 7))), 0xBEEF);
        assert_eq!(edge(&mut uut, 63, None), 7);
    }

    /// The tool is installed; when it is not, the check is skipped unless PMCG_REQUIRE_TOOLS=1
    /// (the test suite's setting), which makes a missing tool a failure.
    fn have_tool(tool: &str) -> bool {
        let found = std::process::Command::new(tool).arg("-V").output().is_ok();
        let required = std::env::var("PMCG_REQUIRE_TOOLS").is_ok_and(|v| v == "1");
        assert!(
            found || !required,
            "{tool} is required (PMCG_REQUIRE_TOOLS=1)"
        );
        found
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("pmcg-bram-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The emitted Verilog does what the native model does, poison included (Icarus Verilog
    /// runs the same sequence as the native test above).
    #[test]
    fn the_verilog_poisons_a_colliding_read_in_simulation() {
        if !have_tool("iverilog") {
            return;
        }
        let mut uut = Bram::<16>::default();
        uut.connect_all();
        let dir = scratch("sim");
        std::fs::write(dir.join("bram.v"), generate_verilog(&uut)).unwrap();
        let tb = r#"
module tb;
  reg clock = 0; reg [5:0] ra = 0, wa = 0; reg [15:0] wd = 0; reg we = 0;
  wire [15:0] rd;
  top uut(.clock(clock), .read_address(ra), .read_data(rd), .write_address(wa),
          .write_data(wd), .write_enable(we));
  task edge_(input [5:0] r, input w, input [5:0] a, input [15:0] d);
    begin ra = r; we = w; wa = a; wd = d; #1 clock = 1; #1 $display("%h", rd); clock = 0; end
  endtask
  initial begin
    edge_(5, 0, 0, 0); edge_(4, 1, 5, 16'h1234); edge_(5, 0, 0, 0);
    edge_(5, 1, 5, 16'hbeef); edge_(5, 1, 63, 7); edge_(63, 0, 0, 0); $finish;
  end
endmodule
"#;
        std::fs::write(dir.join("tb.v"), tb).unwrap();
        let exe = dir.join("tb.vvp");
        let built = std::process::Command::new("iverilog")
            .arg("-o")
            .arg(&exe)
            .arg(dir.join("bram.v"))
            .arg(dir.join("tb.v"))
            .output()
            .unwrap();
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let run = std::process::Command::new("vvp")
            .arg(&exe)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&run.stdout);
        let got: Vec<&str> = out.lines().filter(|l| !l.contains("$finish")).collect();
        assert_eq!(
            got,
            ["0000", "0000", "1234", "edcb", "beef", "0007"],
            "{out}"
        );
    }

    /// Yosys maps the block to iCE40 block RAM with no read-first emulation, which it adds to
    /// rust-hdl's `RAM` on one clock (the check fails on that one).
    #[test]
    fn yosys_maps_it_to_block_ram_without_read_first_emulation() {
        if !have_tool("yosys") {
            return;
        }
        // Both RAMs on one clock, as in the design (rust-hdl's has a port per clock).
        let emulated = |verilog: String, clocks: &str, name: &str| -> bool {
            let dir = scratch(name);
            let wrapper = format!(
                "module one_clock(input clock, input [5:0] ra, wa, input [15:0] wd, input we, \
                 output [15:0] rd);\n  top u({clocks}, .read_address(ra), .read_data(rd), \
                 .write_address(wa), .write_data(wd), .write_enable(we));\nendmodule\n"
            );
            std::fs::write(dir.join("ram.v"), verilog + &wrapper).unwrap();
            let out = std::process::Command::new("yosys")
                .arg("-p")
                .arg(format!(
                    "read_verilog {}; synth_ice40 -top one_clock; \
                     select -assert-count 1 t:SB_RAM40_4K",
                    dir.join("ram.v").display()
                ))
                .output()
                .unwrap();
            let log = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{name}: yosys failed:\n{log}");
            log.contains("emulate_read_first") || log.contains("emulate_transparency")
        };
        let mut ours = Bram::<16>::default();
        ours.connect_all();
        assert!(
            !emulated(generate_verilog(&ours), ".clock(clock)", "ours"),
            "Bram got emulation logic"
        );
        let mut theirs = RAM::<Bits<16>, BRAM_ADDR_BITS>::default();
        theirs.connect_all();
        assert!(
            emulated(
                generate_verilog(&theirs),
                ".read_clock(clock), .write_clock(clock)",
                "theirs"
            ),
            "the check does not notice rust-hdl's RAM's emulation"
        );
    }
}
