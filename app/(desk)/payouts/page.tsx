import type { Metadata } from "next";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { NoGame } from "../no-game";

export const metadata: Metadata = { title: "Payouts" };

export default async function PayoutsPage() {
  const user = await requirePageRole("viewer");
  const game = await resolveSelectedGame(getDb(), user);
  return (
    <>
      <PageHeader title="Payouts" description="Monthly revenue-share payouts per recipient, from frozen snapshots." />
      {game ? (
        <EmptyState title="No snapshot yet">
          {user.role === "finance" || user.role === "admin"
            ? `Take a snapshot of a month for ${game.name} to review what each recipient earned.`
            : "Finance takes snapshots of each month; they will show here."}
        </EmptyState>
      ) : (
        <NoGame role={user.role} />
      )}
    </>
  );
}
