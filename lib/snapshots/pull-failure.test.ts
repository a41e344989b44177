import { describe, expect, it } from "vitest";
import { classifyPullFailure } from "./pull-failure";

describe("a pull's failure", () => {
  it("is final when PostgreSQL refused a value of the report as data: reading it again fails the same way", () => {
    const nul = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: "22021" });
    expect(classifyPullFailure(nul, undefined)).toMatchObject({ code: "UNSTORABLE_VALUE", final: true });
    expect(classifyPullFailure(nul, undefined).message).toMatch(/^The service's report holds a value the desk cannot/);
  });

  it("is tried again for anything else the database or the desk failed on", () => {
    const lost = Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });
    expect(classifyPullFailure(lost, undefined)).toMatchObject({ code: "PULL_ERROR", final: false });
    // The desk's own arithmetic is not the report's: not blamed on the service.
    const divided = Object.assign(new Error("division by zero"), { code: "22012" });
    expect(classifyPullFailure(divided, undefined)).toMatchObject({ code: "PULL_ERROR", final: false });
    expect(classifyPullFailure(new Error("boom"), undefined)).toMatchObject({ code: "PULL_ERROR", final: false });
  });

  it("names a connection that failed an internal error, not by its system code and the host it names", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.4.7:5432"), {
      code: "ECONNREFUSED",
      errno: -111,
      syscall: "connect",
    });
    expect(classifyPullFailure(refused, undefined)).toMatchObject({ code: "PULL_ERROR", final: false });
    // A host of several addresses (localhost: IPv4 and IPv6) refused on each: Node's AggregateError, code and all.
    const everyAddress = Object.assign(new AggregateError([refused, refused]), { code: "ECONNREFUSED" });
    expect(classifyPullFailure(everyAddress, undefined)).toMatchObject({ code: "PULL_ERROR", final: false });
    // The desk's own codes are kept.
    const busy = Object.assign(new Error("a pull of this window is under way"), { code: "PULL_BUSY" });
    expect(classifyPullFailure(busy, undefined)).toMatchObject({ code: "PULL_BUSY" });
  });
});
