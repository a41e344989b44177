import { describe, expect, it } from "vitest";
import { classifySearch, SUBSCRIPTION_ID_EXAMPLE, upperCaseSubscriptionId } from "./search";

describe("classifySearch", () => {
  it("sends a subscription id to its page, whatever the case of its prefix", () => {
    expect(classifySearch(" SUB_1767225600_AAAA0001 ")).toMatchObject({
      kind: "subscription",
      subscriptionId: "SUB_1767225600_AAAA0001",
    });
    expect(classifySearch("sub_1767225600_ab12cd34")).toMatchObject({
      kind: "subscription",
      subscriptionId: "SUB_1767225600_ab12cd34",
      href: "/subscriptions/SUB_1767225600_ab12cd34",
    });
  });

  it("shows an example id as the service issues them, which the search takes as it is", () => {
    // Service ids carry upper-case letters; a lower-case example would send people to "No such subscription".
    expect(SUBSCRIPTION_ID_EXAMPLE).toBe(SUBSCRIPTION_ID_EXAMPLE.toUpperCase());
    expect(classifySearch(SUBSCRIPTION_ID_EXAMPLE)).toMatchObject({
      kind: "subscription",
      subscriptionId: SUBSCRIPTION_ID_EXAMPLE,
    });
    const refused = classifySearch("SUB_12");
    expect(refused.kind === "invalid" ? refused.message : "").toContain(SUBSCRIPTION_ID_EXAMPLE);
  });

  it("explains a malformed subscription id", () => {
    expect(classifySearch("SUB_12")).toMatchObject({ kind: "invalid" });
  });

  it("sends an email to the player page, lower-cased and encoded", () => {
    expect(classifySearch("Player7+vip@Demo.example")).toEqual({
      kind: "player",
      email: "player7+vip@demo.example",
      href: "/subscriptions/players/player7%2Bvip%40demo.example",
    });
    expect(classifySearch("not an@email")).toMatchObject({ kind: "invalid" });
    // Letters beyond ASCII, and characters the standard allows in the local part.
    expect(classifySearch("Jürgen@example.de")).toEqual({
      kind: "player",
      email: "jürgen@example.de",
      href: "/subscriptions/players/j%C3%BCrgen%40example.de",
    });
    expect(classifySearch("a=b!c/d@example.com")).toMatchObject({ kind: "player", email: "a=b!c/d@example.com" });
    // A country's own top-level domain as the address carries it, in punycode.
    expect(classifySearch("user@example.XN--P1AI")).toMatchObject({ kind: "player", email: "user@example.xn--p1ai" });
    // Not a "%" (the page would decode it into another address), a control character or an undotted domain.
    for (const refused of ["a%41b@example.com", "a\u0000b@example.com", "a\u200bb@example.com", "a@b", "x@..com"])
      expect(classifySearch(refused), JSON.stringify(refused)).toMatchObject({ kind: "invalid" });
  });

  it("sends a number to the period page", () => {
    expect(classifySearch("4021")).toEqual({ kind: "period", periodId: 4021, href: "/subscriptions/periods/4021" });
    expect(classifySearch("#17")).toMatchObject({ kind: "period", periodId: 17 });
    expect(classifySearch("0")).toMatchObject({ kind: "invalid" });
    expect(classifySearch("")).toMatchObject({ kind: "invalid" });
    expect(classifySearch("hello")).toMatchObject({ kind: "invalid" });
  });
});

describe("upperCaseSubscriptionId", () => {
  it("gives the id in capitals when that is another id, and nothing when it is the same or no id at all", () => {
    expect(upperCaseSubscriptionId("SUB_1767225600_ab12cd34")).toBe("SUB_1767225600_AB12CD34");
    expect(upperCaseSubscriptionId("SUB_1767225600_AB12CD34")).toBeNull();
    // "ß" is "SS" in capitals: nine characters after the epoch, which the service client would refuse to send.
    expect(classifySearch("sub_1767225600_abcdefgß")).toMatchObject({ kind: "subscription" });
    expect(upperCaseSubscriptionId("SUB_1767225600_abcdefgß")).toBeNull();
  });
});
