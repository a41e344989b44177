// Payout Desk runs on Node.js 20.11 or newer (import.meta.dirname, module.register): every program of the desk
// imports this first, so an older Node.js is told so in one line instead of failing somewhere inside.

/** True when a Node.js version ("18.19.0") is older than the desk runs on. */
export function tooOld(version) {
  const [major = 0, minor = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  return major < 20 || (major === 20 && minor < 11);
}

if (tooOld(process.versions.node)) {
  console.error(`Payout Desk needs Node.js 20.11 or newer; this is ${process.version}.`);
  process.exit(1);
}
