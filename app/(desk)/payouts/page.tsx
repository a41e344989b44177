import type { Metadata } from "next";
import { LinkButton } from "@/app/_components/ui/link-button";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { addMonths, monthKeyOf } from "@/lib/time";
import { NoGame } from "../no-game";
import { takeSnapshotAction } from "./actions";
import { PayoutsNav } from "@/app/_components/payouts/payouts-nav";
import { TakeSnapshotButton } from "./snapshot-form";
import { SnapshotSection } from "./snapshot-section";
import { WindowsOverview } from "./windows-overview";

export const metadata: Metadata = { title: "Payouts" };

export default async function PayoutsPage() {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const canTake = hasRole(user.role, "finance");
  return (
    <>
      <PageHeader
        title="Payouts"
        description="Monthly revenue-share payouts per recipient, from frozen snapshots."
        actions={
          game && canTake ? (
            <>
              <LinkButton href="/payouts/payee-totals">Year-end payee totals</LinkButton>
              <TakeSnapshotButton
                action={takeSnapshotAction}
                defaultMonth={addMonths(monthKeyOf(Date.now()), -1)}
                gameId={game.id}
              />
            </>
          ) : undefined
        }
      />
      <PayoutsNav current="/payouts" />
      {game ? (
        <div className="flex flex-col gap-6">
          <SnapshotSection db={db} gameId={game.id} gameName={game.name} canTake={canTake} />
          <WindowsOverview db={db} gameId={game.id} />
        </div>
      ) : (
        <NoGame role={user.role} />
      )}
    </>
  );
}
