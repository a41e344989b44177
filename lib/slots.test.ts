import { describe, expect, it } from "vitest";
import { Slots } from "@/core/slots";

describe("Slots", () => {
  it("hands out its slots, then each one given back to whoever asked first, and takes one back once", async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const a = await slots.take();
    const b = await slots.take();
    const c = slots.take().then((give) => {
      order.push("c");
      return give;
    });
    const d = slots.take().then((give) => {
      order.push("d");
      return give;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    a();
    const giveC = await c;
    expect(order).toEqual(["c"]);
    b();
    await d;
    expect(order).toEqual(["c", "d"]);
    giveC();
    // One slot free again (c's), not two from a's second give-back.
    await slots.take();
    let taken = false;
    void slots.take().then(() => {
      taken = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(taken).toBe(false);
  });

  it("refuses a size that is not a positive whole number", () => {
    expect(() => new Slots(0)).toThrow(RangeError);
    expect(() => new Slots(1.5)).toThrow(RangeError);
  });
});
