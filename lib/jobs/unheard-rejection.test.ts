import { afterEach, describe, expect, it, vi } from "vitest";
import { isConnectionLoss, onUnheardRejection } from "./unheard-rejection";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a rejection nothing awaited, in desk worker", () => {
  it("is logged and outlived when the database connection was lost", () => {
    const written = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const lost = [
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("connection failure"), { code: "08006" }),
      new Error("Connection terminated unexpectedly"),
      new Error("Connection terminated due to connection timeout"),
      new Error("Client has encountered a connection error and is not queryable"),
      new Error("Client was closed and is not queryable"),
    ];
    for (const error of lost) {
      expect(isConnectionLoss(error)).toBe(true);
      expect(() => onUnheardRejection(error)).not.toThrow();
    }
    expect(written.mock.calls.filter(([line]) => String(line).includes("the connection lost"))).toHaveLength(8);
  });

  it("ends the process as Node would for anything else", () => {
    const others = [
      Object.assign(new Error('relation "x" does not exist'), { code: "42P01" }),
      Object.assign(new Error("deadlock detected"), { code: "40P01" }),
      new TypeError("cannot read properties of undefined"),
      "a string",
      undefined,
    ];
    for (const reason of others) {
      expect(isConnectionLoss(reason)).toBe(false);
      expect(() => onUnheardRejection(reason)).toThrow();
    }
  });
});
