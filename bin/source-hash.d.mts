/** See bin/source-hash.mjs. */
export function sourceHash(root: string, inputs: { dirs: string[]; files: string[]; skip: RegExp }): string;
