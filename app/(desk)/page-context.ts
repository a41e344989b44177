import "server-only";
import { getDb } from "@/db";
import type { Role } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";

/** The props of a page that reads its query string. */
export type SearchParamsProps = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** What a desk page starts from: the signed-in user (with at least `role`), the database and the selected game. */
export async function loadDeskPage(role: Role) {
  const user = await requirePageRole(role);
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  return { user, db, game };
}
