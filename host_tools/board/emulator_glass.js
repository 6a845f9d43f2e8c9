// The faces' glass on the emulated chip: the two HT1621 controllers, decoded from the pins.
//
// Loaded by the kit's runner.js as its --adc model (host_tools/board/emulator.py, Chip(glass=True)):
// module.exports(rp2040, api) is called after the runner installed its own Hall model, and
// leaves it alone (no onADCRead here). It listens to the faces' lines (hardware/pinmap.csv:
// GP16 LCD_CS_L, GP17 LCD_CS_R, GP18 LCD_WR, GP19 LCD_DATA) and does what an HT1621 does
// with them (firmware/ui/face.py drives them; firmware/hal/virtual.py's Ht1621 is the same
// decoder in Python): a frame is CS low; WR's rising edge latches DATA; a frame starts with a
// 3-bit ID, 100 commands (8 bits and a don't-care bit each), 101 a write (a 6-bit address,
// most significant bit first, then nibbles D0 first at successive addresses).
//
// Each time a frame changes what a face shows, the file named by --glass=FILE is rewritten
// whole (a temporary file renamed over it): {"faces": [{"ram": [32 nibbles], "on": bool},
// ...], "frames": n, "bad": n, "ms": chip time}, Black's face first (CS_R: the faces follow
// the paddles, Black's on the right), then White's (CS_L). The Python side reads it with
// firmware/hal/virtual.py's read(), as the virtual board reads its own glass.
'use strict';
const fs = require('fs');

const CS_L = 16, CS_R = 17, WR = 18, DATA = 19;
const ID_CMD = 4, ID_WRITE = 5;
const SYS_DIS = 0x00, SYS_EN = 0x01, LCD_OFF = 0x02, LCD_ON = 0x03;

module.exports = function (mcu, api) {
  const out = api.opts.glass;
  if (!out) { api.log('glass: no --glass=FILE, the faces are not read'); return; }
  const level = (p) => (mcu.gpio[p].outputValue ? 1 : 0);
  const chip = (cs) => ({ cs, ram: new Array(32).fill(0), sys: false, lcd: false, n: -1, id: 0, acc: 0, k: 0, addr: 0, dirty: false });
  const chips = [chip(CS_R), chip(CS_L)];
  let frames = 0, bad = 0;

  function command(c, ch) {
    if (c === SYS_EN) ch.sys = true;
    else if (c === SYS_DIS) { ch.sys = false; ch.lcd = false; }
    else if (c === LCD_ON) ch.lcd = true;
    else if (c === LCD_OFF) ch.lcd = false;
    else return;
    ch.dirty = true;
  }

  function clock(ch, bit) {
    const n = ch.n;
    if (n < 0) return;
    ch.n = n + 1;
    if (n < 3) { ch.id = (ch.id << 1) | bit; return; }
    if (ch.id === ID_CMD) {
      ch.acc = (ch.acc << 1) | bit;
      if (++ch.k === 9) { command(ch.acc >> 1, ch); ch.acc = 0; ch.k = 0; }
    } else if (ch.id === ID_WRITE) {
      if (n < 9) { ch.addr = n > 3 ? (ch.addr << 1) | bit : bit; return; }
      ch.acc |= bit << ch.k;
      if (++ch.k === 4) {
        if (ch.ram[ch.addr] !== ch.acc) { ch.ram[ch.addr] = ch.acc; ch.dirty = true; }
        ch.addr = (ch.addr + 1) % 32; ch.acc = 0; ch.k = 0;
      }
    }
  }

  function save() {
    const data = {
      faces: chips.map((ch) => ({ ram: ch.ram, on: ch.sys && ch.lcd })),
      frames, bad, ms: mcu.clock.nanos / 1e6,
    };
    fs.writeFileSync(out + '.tmp', JSON.stringify(data));
    fs.renameSync(out + '.tmp', out);
  }

  for (const ch of chips) {
    let last = level(ch.cs);
    mcu.gpio[ch.cs].addListener(() => {
      const v = level(ch.cs);
      if (v === last) return;
      last = v;
      if (!v) { ch.n = 0; ch.id = 0; ch.acc = 0; ch.k = 0; return; } // a frame starts
      if (ch.n >= 0) { // it ends: an unfinished nibble or command is lost
        frames++;
        if ((ch.id !== ID_CMD && ch.id !== ID_WRITE) || ch.k) bad++;
      }
      ch.n = -1;
      if (ch.dirty) { ch.dirty = false; save(); }
    });
  }
  let wr = level(WR);
  mcu.gpio[WR].addListener(() => {
    const v = level(WR);
    if (v && !wr) { const bit = level(DATA); for (const ch of chips) if (!level(ch.cs)) clock(ch, bit); }
    wr = v;
  });
  save(); // blank faces until the app draws them
  api.log('glass: the faces to ' + out);
};
