//! `FilterTable`: the counters' StreamID filters as block-RAM lookup tables, rebuilt one column
//! at a time on a filter write, double-buffered so that a counter always sees its old or its
//! new filter, never a mix (issue 11; `../shared/notes/ice40-field-notes.md`, "StreamID filters
//! as lookup tables"). The register file holds one with `filter_tables = on` (regfile.rs: the
//! tables' `hit` replaces each counter's StreamID compare; docs/behaviour.md "Filter tables").
//!
//! ```text
//!  sid[l] (live) ─► byte b of it addresses table (copy c, lane l, byte b): 256 rows x counters
//!                   bits, both copies read at every edge ──► rd[c][l][b] (registered)
//!  hit[l] = AND over b of rd[g][l][b]   (g: the active copy, a register)
//!
//!  start, col, care, val ──► (busy = 0) cur := (col, care, val), row := 0, busy := 1
//!  busy, row 0-255 ──► write row `row` of copy !g (both lanes' tables, every byte b), bit mask
//!       {cur.col, prev.col}: bit cur.col  = ((row ^ cur.val[b])  & cur.care[b])  == 0
//!                            bit prev.col = ((row ^ prev.val[b]) & prev.care[b]) == 0
//!  busy, row = 256 (`flip`) ──► g := !g, busy := 0, prev := cur
//! ```
//! A mask compare factorises per byte: `((sid ^ val) & care) == 0` exactly when it holds for
//! every byte, so bit n of row a of byte b's table is counter n's compare of a key byte a
//! (SMMUv3 10.4: SMRn.STREAMID with FILTER_SID_SPAN's don't-care bits is such a (care, val)).
//!
//! Contract (checked against `pmcg_sim::filter_table_sim::FilterTableModel`, written from it):
//! - `hit[l]` bit n in cycle t+1 is counter n's filter compare `((sid ^ val) & care) == 0` of the
//!   `sid[l]` presented in cycle t (the block RAM's registered read: the StreamID the match
//!   stage registers at the same edge), with the filter counter n has in cycle t+1, for every
//!   counter whose column has been rebuilt since the last reset edge. Care bits above
//!   8 x `sid_bytes` are ignored; bits of `hit` at and above `counters` are 0.
//! - `start` at an edge with `busy` = 0 begins a rebuild of column `col` with (`care`, `val`);
//!   at an edge with `busy` = 1 it is ignored (the caller waits). The rebuild writes the
//!   inactive copy's 256 rows at the next 256 edges, and at the following edge (the 257th after
//!   `start`; `flip` is 1 in the cycle before it) the copies swap: from then on counter `col`
//!   has the new filter, until that edge the old one, in every cycle either, never a mix.
//! - Every other column is unchanged by a rebuild. The copies hold every column alike except the
//!   last one rebuilt (the active copy has its new filter): each rebuild also rewrites that
//!   column (`prev`) into the inactive copy, so the swap changes `col` alone.
//! - A reset edge cancels a rebuild and forgets `prev`; every column's filter is then unknown
//!   until it is rebuilt (EVTYPERn resets to event 0, which no filter concerns, so a counter's
//!   filter matters only once it has been written, and each write rebuilds).
//! - A read of a row written at the same edge is undefined on the FPGA: only the inactive copy
//!   is written, and the copies swap one edge after its last write, so no used read collides.
//!   Simulation poisons such reads (the native model and the Verilog outside synthesis return
//!   the inverted row), so a design that used one would fail its tests.
//!
//! Cost: 2 copies x lanes x `sid_bytes` tables of 256 x `counters` bits (256 x 16 block RAMs:
//! 32 counters, one lane, 16-bit StreamIDs: 8 block RAMs), and the rebuild's registers.

use rust_hdl::prelude::*;

/// Rows of a table: one per value of a key byte.
pub const TABLE_ROWS: usize = 256;

/// Edges from `start` to the swap (256 row writes, then the swap).
pub const REBUILD_EDGES: u64 = TABLE_ROWS as u64 + 1;

/// A fault planted for the tests that must catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterTableFault {
    /// The rebuild does not rewrite the previous column into the inactive copy: the swap
    /// brings that column's stale filter back.
    NoCatchUp,
    /// The rebuild stops one row short: row 255 keeps the old filter's bit.
    SkipLastRow,
}

/// The table's dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableShape {
    /// Counters (columns), 1-64.
    pub counters: usize,
    /// Lanes (independent StreamIDs looked up every cycle), 1-8.
    pub lanes: usize,
    /// StreamID bytes compared, 1-4 (`ceil(sid_bits / 8)`).
    pub sid_bytes: usize,
}

impl TableShape {
    /// The shape for `counters`, `lanes` and `sid_bits`, or what is out of range.
    pub fn new(counters: usize, lanes: usize, sid_bits: u32) -> Result<Self, String> {
        if !(1..=64).contains(&counters) {
            return Err(format!("counters = {counters}: the table takes 1-64"));
        }
        if !(1..=8).contains(&lanes) {
            return Err(format!("lanes = {lanes}: the table takes 1-8"));
        }
        if !(1..=32).contains(&sid_bits) {
            return Err(format!("sid_bits = {sid_bits}: the table takes 1-32"));
        }
        Ok(TableShape {
            counters,
            lanes,
            sid_bytes: sid_bits.div_ceil(8) as usize,
        })
    }

    /// Tables of 256 x `counters` bits (both copies).
    pub fn tables(&self) -> usize {
        2 * self.lanes * self.sid_bytes
    }

    /// iCE40 block RAMs (256 x 16) the tables take.
    pub fn block_rams(&self) -> usize {
        self.tables() * self.counters.div_ceil(16)
    }

    fn col_mask(&self) -> u64 {
        if self.counters == 64 {
            u64::MAX
        } else {
            (1u64 << self.counters) - 1
        }
    }

    /// Index of table (copy, lane, byte) in the block's table list.
    fn index(&self, copy: usize, lane: usize, byte: usize) -> usize {
        (copy * self.lanes + lane) * self.sid_bytes + byte
    }
}

/// Bit `row` of the column of a filter (`care`, `val`) in byte `byte`'s table.
pub fn column_bit(care: u32, val: u32, byte: usize, row: usize) -> bool {
    let (c, v) = ((care >> (8 * byte)) & 0xFF, (val >> (8 * byte)) & 0xFF);
    ((row as u32 ^ v) & c) == 0
}

/// The filter tables. A hand-written primitive (like `MatchRegs` and `Bram`): its registers
/// are its own outputs' sources, and `update` and `hdl` are the same logic.
pub struct FilterTable {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// The lanes' StreamIDs of this cycle (looked up at its edge).
    pub sid: Vec<Signal<In, Bits<32>>>,
    /// Begin a rebuild of column `col` with filter (`care`, `val`) (when `busy` is 0).
    pub start: Signal<In, Bit>,
    pub col: Signal<In, Bits<6>>,
    pub care: Signal<In, Bits<32>>,
    pub val: Signal<In, Bits<32>>,
    /// Per lane: bit n = counter n's filter matches the StreamID of the previous cycle.
    pub hit: Vec<Signal<Out, Bits<64>>>,
    /// A rebuild is under way (from the edge of its `start` to the edge of its swap).
    pub busy: Signal<Out, Bit>,
    /// The next edge swaps the copies: the rebuilt column's new filter applies after it.
    pub flip: Signal<Out, Bit>,
    shape: TableShape,
    fault: Option<FilterTableFault>,
    /// False for [`FilterTable::absent`]: no tables, outputs 0.
    present: bool,
    mem: Vec<Vec<u64>>,
    rd: Vec<u64>,
    g: bool,
    row: usize,
    busy_r: bool,
    /// `flip` as a register: set at the edge that takes `row` to 256 (the swap's cycle), so the
    /// event selection it loads in the register file is not behind a 9-bit compare.
    flip_r: bool,
    cur: (usize, u32, u32),
    prev: Option<(usize, u32, u32)>,
}

impl FilterTable {
    pub fn new(shape: TableShape, fault: Option<FilterTableFault>) -> Self {
        let t = shape.tables();
        FilterTable {
            clock: Default::default(),
            rst: Default::default(),
            sid: (0..shape.lanes).map(|_| Default::default()).collect(),
            start: Default::default(),
            col: Default::default(),
            care: Default::default(),
            val: Default::default(),
            hit: (0..shape.lanes).map(|_| Default::default()).collect(),
            busy: Default::default(),
            flip: Default::default(),
            shape,
            fault,
            present: true,
            mem: vec![vec![0; TABLE_ROWS]; t],
            rd: vec![0; t],
            g: false,
            row: 0,
            busy_r: false,
            flip_r: false,
            cur: (0, 0, 0),
            prev: None,
        }
    }

    /// No tables (a configuration without them): the ports of a `lanes`-lane table, every
    /// output 0, no logic. (rust-hdl's Verilog generation mistranslates an output of a block in
    /// a `Vec` indexed by a second loop variable, `self.t[i].hit[l]`, so the register file
    /// holds one `FilterTable` always rather than a `Vec` of zero or one.)
    pub fn absent(lanes: usize) -> Self {
        let mut t = FilterTable::new(
            TableShape {
                counters: 1,
                lanes,
                sid_bytes: 1,
            },
            None,
        );
        t.present = false;
        t.mem.clear();
        t.rd.clear();
        t
    }

    /// The last row the rebuild writes (255, or 254 with the planted fault).
    fn last_row(&self) -> usize {
        if self.fault == Some(FilterTableFault::SkipLastRow) {
            TABLE_ROWS - 2
        } else {
            TABLE_ROWS - 1
        }
    }
}

impl Logic for FilterTable {
    fn update(&mut self) {
        if !self.present || !self.clock.pos_edge() {
            return;
        }
        let s = self.shape;
        let cols = s.col_mask();
        // This edge's write: row `row` of the inactive copy.
        let wr = self.busy_r && self.row < TABLE_ROWS && self.row <= self.last_row();
        let inactive = usize::from(!self.g);
        let (cc, ccare, cval) = self.cur;
        let cur_hot = 1u64 << cc;
        let prev = if self.fault == Some(FilterTableFault::NoCatchUp) {
            None
        } else {
            self.prev
        };
        let prev_hot = prev.map_or(0, |p| 1u64 << p.0);
        let wmask = (cur_hot | prev_hot) & cols;
        for l in 0..s.lanes {
            let sid = self.sid[l].val().to_u64() as u32;
            for b in 0..s.sid_bytes {
                let a = ((sid >> (8 * b)) & 0xFF) as usize;
                for copy in 0..2 {
                    let i = s.index(copy, l, b);
                    let row = self.mem[i][a];
                    let collides = wr && copy == inactive && self.row == a;
                    self.rd[i] = if collides { !row & cols } else { row };
                }
                if wr {
                    let mut data = 0u64;
                    if let Some((pc, pcare, pval)) = prev {
                        if column_bit(pcare, pval, b, self.row) {
                            data |= 1u64 << pc;
                        }
                    }
                    data &= !cur_hot;
                    if column_bit(ccare, cval, b, self.row) {
                        data |= cur_hot;
                    }
                    let i = s.index(inactive, l, b);
                    let old = self.mem[i][self.row];
                    self.mem[i][self.row] = (old & !wmask) | (data & wmask);
                }
            }
        }
        // Rebuild control.
        self.flip_r = !self.rst.val() && self.busy_r && self.row == TABLE_ROWS - 1;
        if self.rst.val() {
            self.busy_r = false;
            self.row = 0;
            self.prev = None;
        } else if self.busy_r {
            if self.row == TABLE_ROWS {
                self.g = !self.g;
                self.busy_r = false;
                self.prev = Some(self.cur);
            } else {
                self.row += 1;
            }
        } else if self.start.val() {
            self.busy_r = true;
            self.row = 0;
            self.cur = (
                self.col.val().index() % 64,
                self.care.val().to_u64() as u32,
                self.val.val().to_u64() as u32,
            );
        }
        // Outputs: functions of the registers just loaded.
        let copy = usize::from(self.g);
        for l in 0..s.lanes {
            let h = (0..s.sid_bytes).fold(cols, |acc, b| acc & self.rd[s.index(copy, l, b)]);
            self.hit[l].next = h.into();
        }
        self.busy.next = self.busy_r;
        self.flip.next = self.flip_r;
    }

    fn connect(&mut self) {
        for h in &mut self.hit {
            h.connect();
        }
        self.busy.connect();
        self.flip.connect();
    }

    fn hdl(&self) -> Verilog {
        let s = self.shape;
        let c = s.counters;
        let mut v = String::new();
        if !self.present {
            v += "// No filter tables in this configuration.\nalways @(*) begin\n";
            for l in 0..s.lanes {
                v += &format!("   hit${l} = 64'h0;\n");
            }
            v += "   busy = 1'b0;\n   flip = 1'b0;\nend\n";
            return Verilog::Custom(v);
        }
        let msb = c - 1;
        // The columns as one-hot registers (loaded at `start`), so that the block RAMs' write
        // masks come from flip-flops, not from a 6-bit decode (the tables' critical path alone).
        v += "// Rebuild state.\n";
        v += &format!("reg g;\nreg [8:0] row;\nreg busy_r;\nreg flip_r;\nreg [{msb}:0] cur_hot;\n");
        v += "reg [31:0] cur_care;\nreg [31:0] cur_val;\n";
        v += &format!("reg [{msb}:0] prev_hot;\nreg [31:0] prev_care;\nreg [31:0] prev_val;\n");
        v += "initial begin\n   g = 1'b0;\n   row = 9'h0;\n   busy_r = 1'b0;\n   flip_r = 1'b0;\n";
        v += &format!("   cur_hot = {c}'h0;\n   prev_hot = {c}'h0;\n");
        v += "   cur_care = 32'h0;\n   cur_val = 32'h0;\n   prev_care = 32'h0;\n   prev_val = 32'h0;\nend\n";
        let last = if self.fault == Some(FilterTableFault::SkipLastRow) {
            "9'd254"
        } else {
            "9'd255"
        };
        v += &format!("wire wr = busy_r & (row <= {last});\n");
        v += "wire [7:0] wa = row[7:0];\n";
        v += "wire [63:0] col_hot = 64'h1 << col;\n";
        if self.fault == Some(FilterTableFault::NoCatchUp) {
            v += &format!("wire [{msb}:0] catch_hot = {c}'h0;\n");
        } else {
            v += &format!("wire [{msb}:0] catch_hot = prev_hot & ~cur_hot;\n");
        }
        v += &format!("wire [{msb}:0] wmask = cur_hot | catch_hot;\n");
        for b in 0..s.sid_bytes {
            let (hi, lo) = (8 * b + 7, 8 * b);
            v += &format!(
                "wire cur_bit{b} = (((wa ^ cur_val[{hi}:{lo}]) & cur_care[{hi}:{lo}]) == 8'h0);\n\
                 wire prev_bit{b} = (((wa ^ prev_val[{hi}:{lo}]) & prev_care[{hi}:{lo}]) == 8'h0);\n\
                 wire [{msb}:0] wdata{b} = (cur_bit{b} ? cur_hot : {c}'h0)\n\
                 \x20   | (prev_bit{b} ? catch_hot : {c}'h0);\n"
            );
        }
        v += "integer i;\n";
        for copy in 0..2 {
            // Copy `copy` is written while the other is active.
            let wen = if copy == 0 { "wr & g" } else { "wr & ~g" };
            for l in 0..s.lanes {
                for b in 0..s.sid_bytes {
                    let m = format!("m{copy}_{l}_{b}");
                    let (hi, lo) = (8 * b + 7, 8 * b);
                    v += &format!(
                        "\n(* no_rw_check *)\nreg [{msb}:0] {m} [0:255];\nreg [{msb}:0] rd{copy}_{l}_{b};\n\
                         initial begin\n   for (i = 0; i < 256; i = i + 1) {m}[i] = {c}'h0;\n   \
                         rd{copy}_{l}_{b} = {c}'h0;\nend\n\
                         always @(posedge clock) begin\n\
                         `ifdef SYNTHESIS\n   rd{copy}_{l}_{b} <= {m}[sid${l}[{hi}:{lo}]];\n`else\n   \
                         // A read of a row written at this edge is undefined on the FPGA: poisoned.\n   \
                         if (({wen}) && (wa == sid${l}[{hi}:{lo}]))\n      \
                         rd{copy}_{l}_{b} <= ~{m}[sid${l}[{hi}:{lo}]];\n   else\n      \
                         rd{copy}_{l}_{b} <= {m}[sid${l}[{hi}:{lo}]];\n`endif\n   \
                         if ({wen}) begin\n      for (i = 0; i < {c}; i = i + 1)\n         \
                         if (wmask[i]) {m}[wa][i] <= wdata{b}[i];\n   end\nend\n",
                        msb = c - 1,
                    );
                }
            }
        }
        v += "\nalways @(posedge clock) begin\n";
        v += "   flip_r <= ~rst & busy_r & (row == 9'd255);\n";
        v += &format!("   if (rst) begin\n      busy_r <= 1'b0;\n      row <= 9'h0;\n      prev_hot <= {c}'h0;\n");
        v += "   end else if (busy_r) begin\n      if (row == 9'd256) begin\n         g <= ~g;\n";
        v += "         busy_r <= 1'b0;\n         prev_hot <= cur_hot;\n";
        v += "         prev_care <= cur_care;\n         prev_val <= cur_val;\n";
        v += "      end else begin\n         row <= row + 9'h1;\n      end\n";
        v += "   end else if (start) begin\n      busy_r <= 1'b1;\n      row <= 9'h0;\n";
        v += &format!("      cur_hot <= col_hot[{msb}:0];\n");
        v += "      cur_care <= care;\n      cur_val <= val;\n   end\nend\n\n";
        // Outputs: the active copy's bytes ANDed (bits at and above `counters` are 0).
        v += "always @(*) begin\n";
        for l in 0..s.lanes {
            let and = |copy: usize| {
                (0..s.sid_bytes)
                    .map(|b| format!("rd{copy}_{l}_{b}"))
                    .collect::<Vec<_>>()
                    .join(" & ")
            };
            let pad = if c < 64 {
                format!("{}'h0, ", 64 - c)
            } else {
                String::new()
            };
            v += &format!("   hit${l} = {{{pad}(g ? ({}) : ({}))}};\n", and(1), and(0));
        }
        v += "   busy = busy_r;\n   flip = flip_r;\nend\n";
        Verilog::Custom(v)
    }
}

impl Block for FilterTable {
    fn connect_all(&mut self) {
        self.connect();
        self.clock.connect_all();
        self.rst.connect_all();
        for s in &mut self.sid {
            s.connect_all();
        }
        self.start.connect_all();
        self.col.connect_all();
        self.care.connect_all();
        self.val.connect_all();
        for s in &mut self.hit {
            s.connect_all();
        }
        self.busy.connect_all();
        self.flip.connect_all();
    }
    fn update_all(&mut self) {
        self.update();
        self.clock.update_all();
        self.rst.update_all();
        for s in &mut self.sid {
            s.update_all();
        }
        self.start.update_all();
        self.col.update_all();
        self.care.update_all();
        self.val.update_all();
        for s in &mut self.hit {
            s.update_all();
        }
        self.busy.update_all();
        self.flip.update_all();
    }
    fn has_changed(&self) -> bool {
        self.clock.has_changed()
            || self.rst.has_changed()
            || self.sid.iter().any(|s| s.has_changed())
            || self.start.has_changed()
            || self.col.has_changed()
            || self.care.has_changed()
            || self.val.has_changed()
            || self.hit.iter().any(|s| s.has_changed())
            || self.busy.has_changed()
            || self.flip.has_changed()
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        self.clock.accept("clock", probe);
        self.rst.accept("rst", probe);
        self.sid.accept("sid", probe);
        self.start.accept("start", probe);
        self.col.accept("col", probe);
        self.care.accept("care", probe);
        self.val.accept("val", probe);
        self.hit.accept("hit", probe);
        self.busy.accept("busy", probe);
        self.flip.accept("flip", probe);
        probe.visit_end_scope(name, self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::settle;

    /// One clock cycle: inputs set in the low phase, then a rising edge.
    fn edge(uut: &mut FilterTable, setup: impl Fn(&mut FilterTable)) {
        uut.clock.next = Clock::from(false);
        setup(uut);
        settle(uut, "FilterTable");
        uut.clock.next = Clock::from(true);
        settle(uut, "FilterTable");
    }

    fn drive(uut: &mut FilterTable, sid: u32, start: Option<(u64, u32, u32)>) {
        edge(uut, |u| {
            u.rst.next = false;
            u.sid[0].next = u64::from(sid).into();
            u.start.next = start.is_some();
            let (col, care, val) = start.unwrap_or((0, 0, 0));
            u.col.next = col.into();
            u.care.next = u64::from(care).into();
            u.val.next = u64::from(val).into();
        });
    }

    /// Rebuilds column `col` with (care, val) while looking up `sid`; returns the cycles the
    /// rebuild was busy.
    fn rebuild(uut: &mut FilterTable, col: u64, care: u32, val: u32, sid: u32) -> u64 {
        drive(uut, sid, Some((col, care, val)));
        let mut busy = 0;
        while uut.busy.val() {
            busy += 1;
            assert!(busy <= REBUILD_EDGES, "the rebuild does not end");
            drive(uut, sid, None);
        }
        busy
    }

    fn hit(uut: &FilterTable) -> u64 {
        uut.hit[0].val().to_u64()
    }

    /// An exact filter, then a span (don't-care low bits): each takes effect at its swap, and
    /// a second column's rebuild keeps the first column's filter (the catch-up).
    #[test]
    fn a_rebuild_swaps_in_its_column_and_keeps_the_others() {
        let mut uut = FilterTable::new(TableShape::new(3, 1, 16).unwrap(), None);
        uut.connect_all();
        assert_eq!(rebuild(&mut uut, 1, 0xFFFF, 0x1234, 0x1234), REBUILD_EDGES);
        // `hit` after an edge is the compare of the StreamID presented before it.
        drive(&mut uut, 0x1234, None);
        assert_eq!(
            hit(&uut) & 0b010,
            0b010,
            "0x1234 matches counter 1's exact filter"
        );
        drive(&mut uut, 0x1235, None);
        assert_eq!(hit(&uut) & 0b010, 0, "0x1235 does not");
        rebuild(&mut uut, 2, 0xFF00, 0x1200, 0x1235);
        drive(&mut uut, 0x1235, None);
        assert_eq!(hit(&uut) & 0b110, 0b100, "0x1235: counter 2's span only");
        drive(&mut uut, 0x1234, None);
        assert_eq!(hit(&uut) & 0b110, 0b110, "0x1234: both, after the swap");
        rebuild(&mut uut, 0, 0xFFFF, 0x0001, 0x1234);
        drive(&mut uut, 0x1234, None);
        assert_eq!(hit(&uut) & 0b110, 0b110, "counter 1 survives two swaps");
    }

    /// A start while busy is ignored; the planted fault without the catch-up loses a column.
    #[test]
    fn without_the_catch_up_a_second_swap_loses_the_first_column() {
        let shape = TableShape::new(2, 1, 16).unwrap();
        let mut good = FilterTable::new(shape, None);
        let mut bad = FilterTable::new(shape, Some(FilterTableFault::NoCatchUp));
        for uut in [&mut good, &mut bad] {
            uut.connect_all();
            rebuild(uut, 0, 0xFFFF, 0x0042, 0x42);
            rebuild(uut, 1, 0xFFFF, 0x0099, 0x42);
            drive(uut, 0x42, None);
        }
        assert_eq!(hit(&good), 0b01);
        assert_eq!(
            hit(&bad),
            0b00,
            "the fault brings counter 0's old (reset) column back"
        );
    }

    /// The register file starts a rebuild one edge after the write (its registered decode), so
    /// the register map's timing constant, which the reference model uses, is this block's.
    #[test]
    fn the_register_maps_apply_delay_is_the_decode_edge_and_the_rebuild() {
        assert_eq!(1 + REBUILD_EDGES, crate::regmap::FILTER_TABLE_APPLY_EDGES);
    }

    #[test]
    fn shapes_out_of_range_are_refused_naming_the_key() {
        assert!(TableShape::new(65, 1, 16)
            .unwrap_err()
            .contains("counters = 65"));
        assert!(TableShape::new(4, 0, 16).unwrap_err().contains("lanes = 0"));
        assert!(TableShape::new(4, 1, 33)
            .unwrap_err()
            .contains("sid_bits = 33"));
        let s = TableShape::new(32, 1, 16).unwrap();
        assert_eq!((s.sid_bytes, s.tables(), s.block_rams()), (2, 4, 8));
        assert_eq!(TableShape::new(64, 1, 12).unwrap().block_rams(), 16);
    }
}
