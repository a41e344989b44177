import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/statements/[statementId]/[format]/route";
import { readRefusal } from "@/lib/browser-request";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";
import { statementFixture } from "./fixture";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));

let t: TestDatabase;
let statementIds: string[];

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ marchStatements: statementIds } = await statementFixture(t.db, "stmt-route"));
});
afterAll(async () => t?.drop());

function download(statementId: string, format: string) {
  return GET(new Request(`http://localhost:3000/api/statements/${statementId}/${format}`), {
    params: Promise.resolve({ statementId, format }),
  });
}

describe("GET /api/statements/[statementId]/[format]", () => {
  it("[finance] downloads a statement as PDF and CSV, named by its number", async () => {
    actAs(await signInAs(t.db, "finance"));
    const pdf = await download(statementIds[0] ?? "", "pdf");
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-disposition")).toBe('attachment; filename="PD-stmt-route-000001.pdf"');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    const csv = await download(statementIds[0] ?? "", "csv");
    expect(await csv.text()).toContain("Анна Петрова");
  });

  it("[finance] gets 404 for an unknown statement or format", async () => {
    actAs(await signInAs(t.db, "finance"));
    expect((await download("00000000-0000-4000-8000-000000000000", "pdf")).status).toBe(404);
    expect((await download(statementIds[0] ?? "", "docx")).status).toBe(404);
    // A person's browser following the link reads the refusal on a page of the desk, its words in a cookie that only
    // that page reads, never in the address.
    const unknown = "00000000-0000-4000-8000-000000000000";
    const followed = await GET(
      new Request(`http://localhost:3000/api/statements/${unknown}/pdf`, {
        headers: { accept: "text/html", "sec-fetch-mode": "navigate" },
      }),
      { params: Promise.resolve({ statementId: unknown, format: "pdf" }) },
    );
    expect(followed.status).toBe(303);
    expect(followed.headers.get("location")).toBe("/download-refused?from=refusal");
    const cookie = followed.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^pd_download_refusal=[^;]+; Path=\/download-refused; Max-Age=60; HttpOnly; SameSite=Lax$/);
    const value = cookie.split(";")[0]?.split("=")[1] ?? "";
    // Read as the page reads it (Next.js decodes a cookie's value first): the words the desk wrote, and only those.
    expect(readRefusal(decodeURIComponent(value))).toMatch(/^No such statement/);
    const [, mac] = value.split(".");
    const forged = `${Buffer.from("Call 555-0100 to get your file").toString("base64url")}.${mac}`;
    expect([readRefusal(forged), readRefusal(`${value}x`), readRefusal("plain words")]).toEqual([null, null, null]);
  });

  it("[finance] refuses a link of a page drawn for another game; a browser is sent to the page saying so", async () => {
    actAs(await signInAs(t.db, "finance"));
    const id = statementIds[0] ?? "";
    const at = (query: string, headers: Record<string, string> = {}) =>
      GET(new Request(`http://localhost:3000/api/statements/${id}/pdf?${query}`, { headers }), {
        params: Promise.resolve({ statementId: id, format: "pdf" }),
      });
    expect((await at("game=stmt-route")).status).toBe(200);
    const script = await at("game=another-game");
    expect(script.status).toBe(409);
    expect(await script.json()).toMatchObject({
      error: { code: "CONFLICT", message: expect.stringMatching(/^The game was switched in another tab/) },
    });
    const browser = await at("game=another-game", { accept: "text/html", "sec-fetch-mode": "navigate" });
    expect(browser.status).toBe(303);
    expect(browser.headers.get("location")).toBe("/download-refused?game=another-game");
  });

  it("[finance] refuses a download another site started, before reading anything", async () => {
    actAs(await signInAs(t.db, "finance"));
    const id = statementIds[0] ?? "";
    const from = (site: string | null, headers: Record<string, string> = {}) =>
      GET(
        new Request(`http://localhost:3000/api/statements/${id}/pdf`, {
          headers: { ...(site ? { "sec-fetch-site": site } : {}), ...headers },
        }),
        { params: Promise.resolve({ statementId: id, format: "pdf" }) },
      );
    const renders = async () =>
      (
        await t.db
          .selectFrom("audit_log")
          .select("id")
          .where("action", "=", "statement.render")
          .where("target", "=", id)
          .execute()
      ).length;
    const before = await renders();
    // The desk's own pages, a typed address or a bookmark, and a script sending no such header.
    for (const site of ["same-origin", "none", null]) expect((await from(site)).status).toBe(200);
    const fetched = await from("cross-site");
    expect(fetched.status).toBe(403);
    expect(await fetched.json()).toMatchObject({
      error: { message: expect.stringMatching(/^This request was started/) },
    });
    // A link followed from another site (or another site of the same domain) lands on the page saying so.
    for (const site of ["cross-site", "same-site"]) {
      const followed = await from(site, { accept: "text/html", "sec-fetch-mode": "navigate" });
      expect(followed.status).toBe(303);
      expect(followed.headers.get("location")).toBe("/download-refused?from=elsewhere");
    }
    // Nothing was made as the person: only the three downloads let through are audited.
    expect((await renders()) - before).toBe(3);
  });

  it("[viewer] is refused", async () => {
    actAs(await signInAs(t.db, "viewer"));
    expect((await download(statementIds[0] ?? "", "pdf")).status).toBe(403);
  });
});
