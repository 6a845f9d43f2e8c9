// The project's models on the emulated chip: what the kit's rp2040js lacks or gets wrong.
//
// Loaded by the kit's runner.js as its --adc module on every run (host_tools/board/emulator.py's
// Chip): module.exports(rp2040, api) is called after the runner installed its own Hall model,
// api.opts holding every --name=value. Start reading at the export:
// - always: DMA pacing timers with the right period. rp2040js 1.4.1's getTimer gives X/Y of
//   clk_sys where the RP2040 (datasheet §2.5.3.1) makes a transfer every Y/X cycles, so a
//   timer-paced channel ran unpaced (and reads timer 3's X as bits >>> 36); the voice's 8 kHz
//   (firmware/hal/rp2040_voice.py: X 1, Y 15,625) depends on it. And the PWM's wrap DREQ,
//   which pwm.js raises at each wrap and never drops (a channel paced by it ran unpaced after
//   the first wrap): dropped once raised, one request a wrap;
// - --glass=FILE: the faces' glass (emulator_glass.js);
// - --speaker=FILE: what PWM slice 0 plays, the voice's output (emulator_speaker.js).
'use strict';
const path = require('path');

const TIMER0_TREQ = 59, PERMANENT_TREQ = 63, PWM_WRAP0_DREQ = 24;

module.exports = function (mcu, api) {
  const dma = mcu.dma;
  // A transfer every Y/X cycles of clk_sys, in microseconds; 0 (never) when X or Y is 0.
  dma.getTimer = function (treq) {
    if (treq === PERMANENT_TREQ) return 1e6 / mcu.clkSys;
    const k = treq - TIMER0_TREQ;
    if (k < 0 || k > 3) return 0;
    const v = this['timer' + k] >>> 0;
    const x = v >>> 16, y = v & 0xffff;
    return x && y ? (y / x) * 1e6 / mcu.clkSys : 0;
  };
  const pwm = mcu.pwm;
  const wrapped = pwm.channelInterrupt.bind(pwm);
  pwm.channelInterrupt = function (index) {
    wrapped(index); // raises DREQ_PWM_WRAP0 + index: the channels waiting on it start
    dma.clearDREQ(PWM_WRAP0_DREQ + index);
  };
  if (api.opts.glass) require(path.join(__dirname, 'emulator_glass.js'))(mcu, api);
  if (api.opts.speaker) require(path.join(__dirname, 'emulator_speaker.js'))(mcu, api);
};
