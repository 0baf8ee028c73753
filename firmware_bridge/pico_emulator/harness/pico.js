// An emulated Raspberry Pi Pico for gravekeeper's tests, stepped in simulated time.
//
// Python (firmware_bridge/pico_emulator/board.py) starts this program and talks
// to it in line-delimited JSON: one command per line on stdin, one reply per
// line on stdout. Nothing runs between commands, so what the firmware sees
// depends only on the commands, never on how busy the machine is.
//
//   {"op":"step","us":N}            run N microseconds of simulated time
//   {"op":"pin","gp":G,"level":L}   L 0/1 drives the pin; null releases it (the pull decides)
//   {"op":"uart","hex":"..."}       queue bytes for UART0 RX, delivered at the line's baud rate
//   {"op":"reset"}                  reboot now, as the RUN pin would
//   {"op":"hang","on":true|false}   stop (or restart) the core while time and peripherals go on
//   {"op":"warp","us":N}            move the TIMER (ticks_us' source) N us ahead
//   {"op":"quit"}
//
// --cycle-scale S makes every CPU cycle take S times longer (a Pico at 125/S MHz);
// 1, the default, is the real chip. Only the free-running serial port uses more:
// the emulator is slower than a Pico, and a slower CPU lets the board's timers
// keep up with the wall clock the host's timeouts are measured on.
//
// Every reply carries "t" (simulated ns since the first boot) and what happened
// since the last reply: "tx" [[t, byte], ...] from UART0, "pins" [[t, gp, level], ...]
// of driven outputs (level -1: no longer driven), "boots" [[t, why], ...].
'use strict';

const fs = require('fs');
const readline = require('readline');
const { RP2040, GPIOPinState } = require('rp2040js');

const FLASH_FS_OFFSET = 0xa0000;
const FLASH_XIP = 0x10000000;
const UART_DR = 0x0;
const UART_TXINTR = 1 << 5;
const WATCHDOG_BASE = 0x40058;
const TIMER_BASE = 0x40054;
const UART_PINS = new Set([0, 1]);

function usage(message) {
  process.stderr.write(`pico.js: ${message}\n` +
    'usage: node pico.js --firmware FILE --bootrom FILE --fs FILE [--timer-start-us N] [--cycle-scale S]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const args = { timerStartUs: 0, cycleScale: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) usage(`${key} needs a value`);
    if (key === '--firmware') args.firmware = value;
    else if (key === '--bootrom') args.bootrom = value;
    else if (key === '--fs') args.fs = value;
    else if (key === '--timer-start-us') args.timerStartUs = Number(value);
    else if (key === '--cycle-scale') args.cycleScale = Number(value);
    else usage(`unknown option ${key}`);
  }
  for (const need of ['firmware', 'bootrom', 'fs']) {
    if (!args[need]) usage(`--${need} is required`);
  }
  if (!Number.isSafeInteger(args.timerStartUs) || args.timerStartUs < 0) usage('--timer-start-us must be a whole number >= 0');
  if (!(args.cycleScale >= 1 && args.cycleScale <= 64)) usage('--cycle-scale must be 1..64');
  return args;
}

const args = parseArgs(process.argv.slice(2));
const bootrom = fs.readFileSync(args.bootrom);
let flash = new Uint8Array(2 * 1024 * 1024).fill(0xff);
flash.set(fs.readFileSync(args.firmware), 0);
flash.set(fs.readFileSync(args.fs), FLASH_FS_OFFSET);

// Each boot gets a fresh chip; timeBase keeps the reported time running on across boots.
let timeBase = 0;
let mcu = null;
let clock = null;
let timerOffsetNs = args.timerStartUs * 1000;
let hung = false;
let rebootWhy = null;
const inputs = new Map(); // gp -> 0, 1 or null (released)
const rxQueue = [];
let rxAlarm = null;
let rxBusy = false;
let out = { tx: [], pins: [], boots: [] };

function now() {
  return timeBase + clock.nanos;
}

// The emulator models no pull resistors: a released pin reads what its pad's pull would give.
function levelOf(pin) {
  const driven = inputs.get(pin.index);
  if (driven !== null && driven !== undefined) return driven === 1;
  if (pin.pullupEnabled && !pin.pulldownEnabled) return true;
  return false;
}

function fixUart(uart) {
  // rp2040js keeps the TX interrupt raised for ever (it has no TX FIFO), so
  // MicroPython's UART handler would re-enter endlessly: the line follows
  // status AND mask, and a data write "empties" the FIFO at once.
  uart.checkInterrupts = function checkInterrupts() {
    this.rp2040.setInterrupt(this.irq, !!(this.interruptStatus & this.interruptMask));
  };
  const write = uart.writeUint32.bind(uart);
  uart.writeUint32 = (offset, value) => {
    write(offset, value);
    if (offset === UART_DR) {
      uart.interruptStatus |= UART_TXINTR;
      uart.checkInterrupts();
    }
  };
  uart.onByte = (value) => out.tx.push([now(), value]);
}

function boot(why) {
  if (mcu !== null) {
    timeBase += clock.nanos;
    flash = mcu.flash.slice(0, flash.length); // flash survives a reset
  }
  mcu = new RP2040(); // its own fresh SimulationClock
  clock = mcu.clock;
  mcu.logger = { debug() {}, info() {}, warn() {}, error(name, msg) { process.stderr.write(`${name}: ${msg}\n`); } };
  mcu.loadBootrom(new Uint32Array(bootrom.buffer, bootrom.byteOffset, bootrom.length / 4));
  mcu.flash.set(flash, 0);
  fixUart(mcu.uart[0]);
  const timer = mcu.peripherals[TIMER_BASE];
  // ticks_us reads the TIMER; an offset on its view of the clock lets a test
  // start it, or move it, close to a wrap without simulating the time before.
  timer.clock = {
    get nanos() { return clock.nanos + timerOffsetNs; },
    createAlarm: (cb) => clock.createAlarm(cb),
  };
  const watchdog = mcu.peripherals[WATCHDOG_BASE];
  watchdog.onWatchdogTrigger = () => {
    rebootWhy = 'watchdog';
    // Its periodic alarm would fire again at the same instant for ever; the chip resets here anyway.
    watchdog.alarm.enable = false;
    watchdog.timer.enable = false;
  };
  for (const pin of mcu.gpio) {
    if (UART_PINS.has(pin.index)) continue;
    pin.setInputValue(levelOf(pin));
    pin.addListener((state, old) => {
      // A pad change (pull-up switched on) must reach the input at once, before the firmware reads it.
      pin.setInputValue(levelOf(pin));
      const level = state === GPIOPinState.High ? 1 : state === GPIOPinState.Low ? 0 : -1;
      const was = old === GPIOPinState.High ? 1 : old === GPIOPinState.Low ? 0 : -1;
      if (level !== was) out.pins.push([now(), pin.index, level]);
    });
  }
  rxAlarm = clock.createAlarm(deliverRx);
  rxBusy = false;
  if (rxQueue.length) scheduleRx();
  mcu.core.PC = FLASH_XIP;
  hung = false;
  out.boots.push([now(), why]);
}

function byteNanos() {
  const baud = mcu.uart[0].baudRate || 115200;
  return Math.round(10e9 / (Number.isFinite(baud) && baud > 0 ? baud : 115200));
}

// Host bytes arrive one character time apart, as on a real line, so the
// 32-byte RX FIFO sees the same pace as on the board.
function scheduleRx() {
  rxBusy = true;
  rxAlarm.schedule(byteNanos());
}

function deliverRx() {
  const value = rxQueue.shift();
  const uart = mcu.uart[0];
  // A UART not yet set up by the firmware hears nothing, as on the chip (held in reset until uart_init).
  if (value !== undefined && uart.enabled && uart.rxEnabled) uart.feedByte(value);
  if (rxQueue.length) scheduleRx();
  else rxBusy = false;
}

function run(us) {
  const target = clock.nanos + us * 1000;
  const cycleNanos = (1e9 / mcu.clkSys) * args.cycleScale;
  while (clock.nanos < target) {
    if (rebootWhy !== null) {
      const why = rebootWhy;
      rebootWhy = null;
      const left = target - clock.nanos;
      boot(why);
      return run(left / 1000);
    }
    if (hung || mcu.core.waiting) {
      const next = clock.nanosToNextAlarm;
      clock.tick(next > 0 && clock.nanos + next < target ? next : target - clock.nanos);
    } else {
      clock.tick(mcu.core.executeInstruction() * cycleNanos);
    }
  }
  if (rebootWhy !== null) run(0);
}

function reply(extra) {
  const message = Object.assign({ ok: true, t: now() }, out, extra);
  out = { tx: [], pins: [], boots: [] };
  process.stdout.write(JSON.stringify(message) + '\n');
}

function fail(message) {
  process.stdout.write(JSON.stringify({ ok: false, error: message }) + '\n');
}

function handle(cmd) {
  switch (cmd.op) {
    case 'step':
      if (!(Number.isFinite(cmd.us) && cmd.us >= 0)) return fail('step: "us" must be a number >= 0');
      run(cmd.us);
      return reply();
    case 'pin': {
      const gp = cmd.gp;
      if (!Number.isInteger(gp) || gp < 2 || gp > 28) return fail('pin: "gp" must be 2..28 (GP0/GP1 are the UART)');
      if (cmd.level !== null && cmd.level !== 0 && cmd.level !== 1) return fail('pin: "level" must be 0, 1 or null');
      inputs.set(gp, cmd.level);
      mcu.gpio[gp].setInputValue(levelOf(mcu.gpio[gp]));
      return reply();
    }
    case 'uart': {
      if (typeof cmd.hex !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(cmd.hex)) return fail('uart: "hex" must be hex digits');
      for (let i = 0; i < cmd.hex.length; i += 2) rxQueue.push(parseInt(cmd.hex.slice(i, i + 2), 16));
      if (!rxBusy && rxQueue.length) scheduleRx();
      return reply();
    }
    case 'reset':
      rxQueue.length = 0;
      boot('reset');
      return reply();
    case 'hang':
      hung = !!cmd.on;
      return reply();
    case 'warp':
      if (!(Number.isInteger(cmd.us) && cmd.us >= 0)) return fail('warp: "us" must be a whole number >= 0');
      timerOffsetNs += cmd.us * 1000;
      return reply();
    case 'state':
      return reply({ timer_us: Math.floor((clock.nanos + timerOffsetNs) / 1000), hung, rx_pending: rxQueue.length });
    case 'quit':
      reply();
      process.exit(0);
      break;
    default:
      return fail(`unknown op ${JSON.stringify(cmd.op)}`);
  }
}

boot('power');
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch (err) {
    return fail(`not JSON: ${err.message}`);
  }
  handle(cmd);
});
lines.on('close', () => process.exit(0));
reply({ ready: true });
