import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tooOld } from "./node-version.mjs";

describe("the Node.js version check", () => {
  it("refuses what is older than 20.11 and lets 20.11 and newer run", () => {
    expect(["18.19.0", "16.20.2", "20.9.0", "20.10.99"].filter(tooOld)).toEqual([
      "18.19.0",
      "16.20.2",
      "20.9.0",
      "20.10.99",
    ]);
    expect(["20.11.0", "20.11.1", "20.19.5", "22.1.0", "24.0.0"].filter(tooOld)).toEqual([]);
  });

  it("is the first import of every entry point, before anything that needs a newer Node.js", () => {
    for (const entry of ["register.mjs", "desk.mjs"]) {
      const source = readFileSync(path.join(import.meta.dirname, entry), "utf8");
      const firstImport = source.split("\n").find((line) => line.startsWith("import "));
      expect(firstImport, entry).toBe('import "./node-version.mjs";');
    }
  });
});
