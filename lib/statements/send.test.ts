import { describe, expect, it } from "vitest";
import { mailboxOf } from "./send";

describe("the address a statement goes to", () => {
  it("is one mailbox, never a list or a name with an address", () => {
    expect(mailboxOf("ana@example.com")).toBe("ana@example.com");
    expect(mailboxOf(null)).toBeNull();
    expect(mailboxOf("")).toBeNull();
    expect(mailboxOf("ana@example.com, other@example.org")).toBeNull();
    expect(mailboxOf("ana@example.com;other@example.org")).toBeNull();
    expect(mailboxOf("Ana <ana@example.com>")).toBeNull();
    expect(mailboxOf("ana@example.com\r\nBcc: other@example.org")).toBeNull();
  });
});
