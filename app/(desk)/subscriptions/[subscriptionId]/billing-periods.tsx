import { HeadCells } from "@/app/_components/table/columns";
import type { Loaded } from "@/lib/lookup/load";
import type { SubscriptionAttribution } from "@/lib/service/schemas";
import { ServiceList } from "../_components/service-list";
import { PeriodRow } from "./period-row";

/** The Billing periods section of a subscription: one page of its periods from the service, filtered by status. */
export function BillingPeriods(props: {
  id: string;
  attribution: Loaded<SubscriptionAttribution>;
  status: string;
  statusOptions: { value: string; label: string }[];
  offset: number;
  pageSize: number;
  action: string;
  hrefFor: (offset: number) => string;
  canRefund: boolean;
}) {
  return (
    <ServiceList
      headingId="periods"
      heading="Billing periods"
      loaded={props.attribution}
      filter={{ action: props.action, value: props.status, options: props.statusOptions, label: "Period status" }}
      caption={`Billing periods of ${props.id}, newest first`}
      head={
        <HeadCells
          columns={[
            "#",
            "Period id",
            "Status",
            "Window",
            "Paid at",
            ["Amount (USD)", "right"],
            ["Refunded (USD)", "right"],
            ["Partner revenue (USD)", "right"],
            ["Attributed (USD)", "right"],
            "Funding",
            "Refund",
          ]}
        />
      }
      pager={{ label: "Billing period pages", offset: props.offset, limit: props.pageSize, hrefFor: props.hrefFor }}
      total={(value) => value.pagination.total_count}
      rows={(value) => value.periods.map((p) => <PeriodRow key={p.period_id} period={p} canRefund={props.canRefund} />)}
      columns={11}
      empty={{
        pastEnd: "No periods on this page: it is past the last one.",
        filtered: "No periods with this status.",
        none: "No billing periods yet.",
      }}
    />
  );
}
