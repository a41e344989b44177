/** True when a Node.js version ("18.19.0") is older than the desk runs on. */
export function tooOld(version: string): boolean;
