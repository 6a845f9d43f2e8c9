// The voice's output on the emulated chip: every write to PWM slice 0's compare register, the
// slice's TOP and enable, and GP23 (the amplifier's enable), with the chip's time.
//
// Loaded by emulator_board.js when the runner is given --speaker=FILE (host_tools/board/
// emulator.py, Chip(speaker=True)). The firmware (firmware/hal/rp2040_voice.py) plays a phrase
// as halfwords a DMA channel writes to slice 0's CC, one per 125 µs; channel B (bits 31:16)
// drives GP1, the voice's pin (hardware/pinmap.csv). FILE gets 12-byte records, little-endian:
// the chip's time in µs (float64), the value (uint16), the kind (uint16: 0 a CC write, its B
// half; 1 GP23's level; 2 TOP; 3 the slice's EN). They are appended every 4,096 records, when
// GP23 falls (a phrase is over: a test reading the file then sees it whole) and when the
// runner stops (SIGTERM, SIGINT, exit). host_tools/board/chip_speaker.py reads them.
'use strict';
const fs = require('fs');

const VOICE_EN = 23, CC = 0x0c, TOP = 0x10, CSR = 0x00;
const KIND_CC = 0, KIND_EN = 1, KIND_TOP = 2, KIND_SLICE = 3;
const RECORD = 12, BATCH = 4096;

module.exports = function (mcu, api) {
  const out = api.opts.speaker;
  const buf = Buffer.alloc(RECORD * BATCH);
  let n = 0, writes = 0, underruns = 0, lastCC = -1, enabled = false;
  fs.writeFileSync(out, Buffer.alloc(0));

  function flush() {
    if (n) fs.appendFileSync(out, buf.subarray(0, n * RECORD));
    n = 0;
  }
  function record(kind, value) {
    const us = mcu.clock.nanos / 1000;
    buf.writeDoubleLE(us, n * RECORD);
    buf.writeUInt16LE(value & 0xffff, n * RECORD + 8);
    buf.writeUInt16LE(kind, n * RECORD + 10);
    if (++n === BATCH) flush();
    return us;
  }

  const slice = mcu.pwm.channels[0];
  const write = slice.writeRegister.bind(slice);
  slice.writeRegister = function (offset, value) {
    write(offset, value);
    if (offset === CC) {
      const us = record(KIND_CC, value >>> 16);
      if (enabled && lastCC >= 0 && us - lastCC > 250) underruns++;
      lastCC = us;
      writes++;
    } else if (offset === TOP) record(KIND_TOP, value);
    else if (offset === CSR) record(KIND_SLICE, value & 1);
  };
  const pin = mcu.gpio[VOICE_EN];
  pin.addListener(() => {
    const v = !!pin.outputValue;
    if (v === enabled) return;
    enabled = v;
    lastCC = -1; // the first write after the amplifier wakes starts the count of gaps
    record(KIND_EN, v ? 1 : 0);
    if (!v) flush();
  });

  function stop() {
    flush();
    api.log('speaker: ' + writes + ' writes to slice 0 CC, ' + underruns + ' gaps over 250 us while GP23 was high');
  }
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('exit', flush); // the runner's own limits end it by process.exit
  api.log('speaker: slice 0 and GP23 to ' + out);
};
