import type { Metadata } from "next";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { NoGame } from "../no-game";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const user = await requirePageRole("viewer");
  const game = await resolveSelectedGame(getDb(), user);
  return (
    <>
      <PageHeader title="Webhooks" description="Signed events the service sent for this game." />
      {game ? (
        <EmptyState title="No events received yet">
          Register {`/api/webhooks/service/${game.id}`} on this server as the game&apos;s webhook URL in the service
          console; events will show here as they arrive.
        </EmptyState>
      ) : (
        <NoGame role={user.role} />
      )}
    </>
  );
}
