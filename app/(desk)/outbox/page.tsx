import type { Metadata } from "next";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { DateTime } from "@/app/_components/ui/date-time";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";
import { Pager } from "@/app/_components/table/pager";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { listOutbox, OUTBOX_PAGE_SIZE } from "@/lib/mail/outbox";
import { formatInstant } from "@/lib/time";
import { pageParam } from "@/lib/table-state";

export const metadata: Metadata = { title: "Outbox" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function OutboxPage({ searchParams }: Props) {
  await requirePageRole("admin");
  const query = await searchParams;
  const page = pageParam(query, 100_000);
  const { rows, total } = await listOutbox(getDb(), page);
  return (
    <>
      <PageHeader
        title="Outbox"
        description={
          "Emails the built-in mail catcher received (npm start without SMTP_URL). Nothing here left this machine."
        }
      />
      {total === 0 ? (
        <EmptyState title="No emails yet">
          Statement emails appear here once finance sends them, while Payout Desk runs with its built-in mail catcher.
          With SMTP_URL set, they go to that server instead and never appear here.
        </EmptyState>
      ) : (
        <>
          <SimpleTable
            caption="Emails received, newest first"
            head={
              <>
                <Th>Received</Th>
                <Th>To</Th>
                <Th>Subject</Th>
              </>
            }
          >
            {rows.map((m) => (
              <Tr key={m.id}>
                <Td>
                  <DateTime value={formatInstant(m.receivedAt)} focusable={false} />
                </Td>
                <Td>{m.rcptTo}</Td>
                <Td>
                  <TextLink href={`/outbox/${m.id}`}>{m.subject ?? "(no subject)"}</TextLink>
                </Td>
              </Tr>
            ))}
          </SimpleTable>
          <Pager
            label="Outbox pages"
            offset={(page - 1) * OUTBOX_PAGE_SIZE}
            limit={OUTBOX_PAGE_SIZE}
            total={total}
            pageHref={(page) => `/outbox?page=${page}`}
          />
        </>
      )}
    </>
  );
}
