import { type Kysely, sql } from "kysely";

// The pacer's buckets, shared by every process of a deployment (web servers, workers, CLI runs): the service's rate
// limits are per game, so all of them together must keep to them. Instants are epoch milliseconds by the database's
// clock, so that machines whose clocks differ still agree.
//
// A bucket counts its admitted calls in 20 slices of its window (`slots` holds each slice's number, ascending, and
// `counts` its calls). A call is admitted while fewer than the limit were admitted in the slices that overlap the
// last window. Any window of the limit's length then lies inside slices counted when its last call was admitted, so
// no window ever holds more than the limit, whatever algorithm the service counts with; the price is at most a
// twentieth of a window of throughput, and a row of a few hundred bytes however high the limit.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table service_pace (
    key text primary key,
    slots bigint[] not null default '{}',
    counts integer[] not null default '{}',
    paused_until double precision not null default 0,
    last_at double precision not null default 0,
    touched_at timestamptz not null default now()
  )`.execute(db);

  // Admits one call through every listed bucket (answers 0), or answers how many milliseconds to wait. The rows are
  // locked in key order, so two callers needing overlapping buckets never deadlock, and the instant is read once
  // they are held, so calls are recorded in the order they were admitted. A call counts in all its buckets or none.
  await sql`create function pace_acquire(p_keys text[], p_limits integer[], p_windows double precision[],
      p_spread boolean) returns double precision language plpgsql as $$
    declare
      t double precision;
      ready double precision;
      b record;
      r service_pace%rowtype;
      slice double precision;
      lo bigint;
      total integer;
      acc integer;
      i integer;
    begin
      insert into service_pace (key) select k from unnest(p_keys) as k order by k on conflict (key) do nothing;
      perform 1 from service_pace where key = any(p_keys) order by key for update;
      t := extract(epoch from clock_timestamp()) * 1000;
      ready := t;
      for b in select u.key, u.lim, u.win from unnest(p_keys, p_limits, p_windows) as u(key, lim, win) loop
        select * into r from service_pace where key = b.key;
        slice := b.win / 20;
        lo := floor((t - b.win) / slice);
        total := 0;
        for i in 1 .. cardinality(r.slots) loop
          if r.slots[i] >= lo then total := total + r.counts[i]; end if;
        end loop;
        ready := greatest(ready, r.paused_until);
        if total >= b.lim then
          -- Ready once enough of the oldest counted slices have left the window.
          acc := 0;
          for i in 1 .. cardinality(r.slots) loop
            if r.slots[i] >= lo then
              acc := acc + r.counts[i];
              if acc >= total - b.lim + 1 then
                ready := greatest(ready, (r.slots[i] + 1) * slice + b.win);
                exit;
              end if;
            end if;
          end loop;
        end if;
        if p_spread then
          ready := greatest(ready, r.last_at + b.win / b.lim);
        end if;
      end loop;
      if ready > t then
        return ready - t;
      end if;
      for b in select u.key, u.win from unnest(p_keys, p_windows) as u(key, win) loop
        slice := b.win / 20;
        lo := floor((t - b.win) / slice);
        update service_pace as p set (slots, counts) = (
            select coalesce(array_agg(s order by s), '{}'), coalesce(array_agg(n order by s), '{}')
            from (select s, sum(n)::integer as n
                  from (select unnest(p.slots) as s, unnest(p.counts) as n
                        union all select floor(t / slice)::bigint, 1) as c
                  where s >= lo group by s) as kept),
          last_at = t, touched_at = now()
        where p.key = b.key;
      end loop;
      return 0;
    end
  $$`.execute(db);

  // Holds every listed bucket closed for p_ms from now (a 429's retry_after), for every process at once.
  await sql`create function pace_pause(p_keys text[], p_ms double precision) returns void language sql as $$
    insert into service_pace as s (key, paused_until)
      select k, extract(epoch from clock_timestamp()) * 1000 + p_ms from unnest(p_keys) as k order by k
      on conflict (key) do update set paused_until = greatest(s.paused_until, excluded.paused_until),
        touched_at = now()
  $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function pace_pause(text[], double precision)`.execute(db);
  await sql`drop function pace_acquire(text[], integer[], double precision[], boolean)`.execute(db);
  await sql`drop table service_pace`.execute(db);
}
