import type { Metadata } from "next";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { NoGame } from "../no-game";

export const metadata: Metadata = { title: "Subscriptions" };

export default async function SubscriptionsPage() {
  const user = await requirePageRole("viewer");
  const game = await resolveSelectedGame(getDb(), user);
  return (
    <>
      <PageHeader title="Subscriptions" description="Look up a subscription, a player or a billing period." />
      {game ? (
        <EmptyState title="Search for a subscription">
          Enter a subscription id (SUB_…), a player email or a period id to see its whole story.
        </EmptyState>
      ) : (
        <NoGame role={user.role} />
      )}
    </>
  );
}
