import { describe, expect, it } from "vitest";
import { sendMessageId } from "./transport";

describe("a send's message id", () => {
  it("takes the sender's domain, however the sender is written", () => {
    const id = (from: string) => sendMessageId("statement", "s1", from);
    expect(id("Studio Statements <statements@studio.test>")).toBe("<statement.s1@studio.test>");
    expect(id("statements@studio.test")).toBe("<statement.s1@studio.test>");
    expect(id("Studio <statements@bücher.de>")).toBe("<statement.s1@xn--bcher-kva.de>");
    expect(id("a@mail_relay.example")).toBe("<statement.s1@mail_relay.example>");
    expect(id("a@studio.test.")).toBe("<statement.s1@studio.test>");
    expect(id("a@[10.0.0.1]")).toBe("<statement.s1@[10.0.0.1]>");
    expect(id('"Odd @ name" <a@studio.test>')).toBe("<statement.s1@studio.test>");
    expect(id("a@")).toBe("<statement.s1@payout-desk.invalid>");
  });
});
