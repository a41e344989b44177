import type { ReactNode } from "react";
import { getDb } from "@/db";
import { AppShell } from "@/app/_components/shell/app-shell";
import { requirePageRole } from "@/lib/auth/session";
import { listGamesOfRender, resolveSelectedGame } from "@/lib/games/games";
import { signOutAction, switchGameAction } from "./actions";

export const dynamic = "force-dynamic";

export default async function DeskLayout({ children }: { children: ReactNode }) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const [games, selected] = await Promise.all([listGamesOfRender(db), resolveSelectedGame(db, user)]);
  return (
    <AppShell
      user={{ email: user.email, name: user.name, role: user.role }}
      games={games.map((g) => ({ id: g.id, name: g.name, environment: g.environment }))}
      selectedGameId={selected?.id ?? null}
      switchGameAction={switchGameAction}
      signOutAction={signOutAction}
    >
      {children}
    </AppShell>
  );
}
