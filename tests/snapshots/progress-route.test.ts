import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { addGame } from "../exports/fixture";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));

/**
 * A pull's progress, polled by the page that shows it, is answered for the game that page was drawn for: after a
 * switch to another game in another tab, the page's card still follows its pull to the end.
 */

let t: TestDatabase;
const pullId = randomUUID();
let GET: (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response>;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "prog-a");
  await addGame(t.db, "prog-b");
  await t.db
    .insertInto("snapshot_pull")
    .values({
      id: pullId,
      game_id: "prog-a",
      window_start: new Date("2026-03-01T00:00:00Z"),
      window_end: new Date("2026-04-01T00:00:00Z"),
      status: "running",
      via: "web",
      requested_by_id: null,
      requested_by_email: null,
      job_id: null,
      snapshot_id: null,
    })
    .execute();
  ({ GET } = (await import("@/app/api/snapshots/[id]/progress/route")) as unknown as { GET: typeof GET });
});
afterAll(async () => t?.drop());

it("[viewer] follows a pull of the game its page showed, whichever game the session selected since", async () => {
  actAs(await signInAs(t.db, "viewer"));
  // Another tab switched the session to the other game.
  await sql`insert into session_game (session_id, game_id, updated_at) select id, 'prog-b', now() from auth_session
    on conflict (session_id) do update set game_id = 'prog-b'`.execute(t.db);
  const progress = (query: string) =>
    GET(new Request(`http://localhost:3000/api/snapshots/${pullId}/progress${query}`), {
      params: Promise.resolve({ id: pullId }),
    });
  const followed = await progress("?game=prog-a");
  expect(followed.status).toBe(200);
  expect(await followed.json()).toMatchObject({ id: pullId, gameId: "prog-a", status: "running" });
  // Without the page's game, the session's is asked: this pull is not one of its pulls.
  expect((await progress("")).status).toBe(404);
  expect((await progress("?game=prog-b")).status).toBe(404);
});
