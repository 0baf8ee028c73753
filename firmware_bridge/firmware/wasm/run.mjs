// Runs a Python script under MicroPython's WebAssembly port (the npm package
// pinned in package-lock.json), so the firmware's tests can execute gkfw.py on
// real MicroPython in seconds, without an emulated board.
//
//   node run.mjs [--heapsize BYTES] [--put NAME=PATH ...] SCRIPT.py
//
// Each --put copies a host file into MicroPython's in-memory filesystem as
// /NAME (a module to import, or input data; NAME may name folders). The script's print output goes
// to stdout. An uncaught Python exception is printed on stderr and the exit
// status is 1, so a caller can never mistake a crash for a quiet run.

import { readFileSync } from "node:fs";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

function usage(message) {
    process.stderr.write(`run.mjs: ${message}\nusage: node run.mjs [--heapsize BYTES] [--put NAME=PATH ...] SCRIPT.py\n`);
    process.exit(2);
}

const puts = [];
let heapsize = 1024 * 1024;
let script = null;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
    if (args[i] === "--put" && i + 1 < args.length) {
        const eq = args[++i].indexOf("=");
        if (eq < 1) usage(`--put needs NAME=PATH, got ${args[i]}`);
        puts.push([args[i].slice(0, eq), args[i].slice(eq + 1)]);
    } else if (args[i] === "--heapsize" && i + 1 < args.length) {
        heapsize = Number.parseInt(args[++i], 10);
        if (!(heapsize > 0)) usage(`bad --heapsize ${args[i]}`);
    } else if (script === null && !args[i].startsWith("--")) {
        script = args[i];
    } else {
        usage(`unexpected argument ${args[i]}`);
    }
}
if (script === null) usage("no script given");

// stdout is kept in order and written once: the script's output is data for
// the caller, and a line split across chunks must not be interleaved.
const chunks = [];
const mp = await loadMicroPython({
    heapsize,
    stdout: (data) => chunks.push(typeof data === "string" ? Buffer.from(data) : Buffer.from(data)),
    stderr: (data) => process.stderr.write(data),
    linebuffer: false,
});
for (const [name, path] of puts) {
    const slash = name.lastIndexOf("/");
    if (slash > 0) mp.FS.mkdirTree("/" + name.slice(0, slash));
    mp.FS.writeFile("/" + name, readFileSync(path));
}
let status = 0;
try {
    mp.runPython("import sys\nif '/' not in sys.path:\n    sys.path.append('/')\n");
    mp.runPython(readFileSync(script, "utf8"));
} catch (error) {
    if (error.name !== "PythonError") throw error;
    process.stderr.write(`MicroPython ${error.type}: ${error.message}\n`);
    status = 1;
}
process.stdout.write(Buffer.concat(chunks));
process.exitCode = status;
