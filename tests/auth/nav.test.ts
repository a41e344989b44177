import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NAV_ITEMS, navItemsFor } from "@/app/_components/shell/nav-items";
import { hasRole, ROLES } from "@/lib/auth/roles";

/** The navigation offers each role only the areas whose page lets that role in (a link to a refusal is a dead end). */

const ROOT = path.resolve(import.meta.dirname, "..", "..");

function pageRole(href: string): string {
  const source = readFileSync(path.join(ROOT, "app", "(desk)", href.slice(1), "page.tsx"), "utf8");
  // The page names its role itself: requirePageRole("role"), or loadDeskPage("role") (app/(desk)/page-context.ts).
  const match = /(?:requirePageRole|loadDeskPage)\("(\w+)"\)/.exec(source);
  if (!match?.[1]) throw new Error(`${href}: page.tsx has no requirePageRole`);
  return match[1];
}

describe("navigation by role", () => {
  it("each link's role is the role its page requires", () => {
    for (const item of NAV_ITEMS) expect(item.role, item.href).toBe(pageRole(item.href));
  });

  it("shows each role exactly the areas it may open", () => {
    for (const role of ROLES) {
      const shown = navItemsFor(role).map((i) => i.href);
      expect(shown, role).toEqual(
        NAV_ITEMS.filter((i) => hasRole(role, pageRole(i.href) as typeof role)).map((i) => i.href),
      );
    }
    expect(navItemsFor("viewer").map((i) => i.label)).not.toContain("Settings");
    expect(navItemsFor("finance").map((i) => i.label)).not.toContain("Settings");
    expect(navItemsFor("admin").map((i) => i.label)).toContain("Settings");
  });

  it("the forbidden page is inside the signed-in frame (it keeps the navigation)", () => {
    expect(() => readFileSync(path.join(ROOT, "app", "(desk)", "forbidden", "page.tsx"))).not.toThrow();
    expect(() => readFileSync(path.join(ROOT, "app", "forbidden", "page.tsx"))).toThrow();
  });
});
