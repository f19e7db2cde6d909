/** One schema change, applied once per database, in array order. Never edit one that shipped. */
export interface Migration {
  id: string;
  sql: string;
}

/** Every migration tel knows, oldest first. Append new ones at the end. */
export const MIGRATIONS: Migration[] = [
  {
    id: '0001-core',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        parent_id TEXT,
        tree TEXT NOT NULL,              -- JSON array of ancestor ids, root first
        name TEXT NOT NULL,
        name_norm TEXT NOT NULL,
        realm TEXT NOT NULL UNIQUE,
        api_key TEXT NOT NULL UNIQUE,
        superduper INTEGER NOT NULL DEFAULT 0,
        reseller INTEGER NOT NULL DEFAULT 0,
        doc TEXT NOT NULL,               -- public fields as JSON
        rev TEXT NOT NULL,
        created INTEGER NOT NULL,        -- unix ms
        modified INTEGER NOT NULL
      );
      CREATE INDEX accounts_parent ON accounts(parent_id);
      CREATE INDEX accounts_name ON accounts(name_norm);

      -- Documents of every other kind (users, devices, callflows, …), one table.
      CREATE TABLE docs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        doc TEXT NOT NULL,               -- public fields as JSON
        pvt TEXT NOT NULL DEFAULT '{}',  -- private fields as JSON
        rev TEXT NOT NULL,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      );
      CREATE INDEX docs_account_kind ON docs(account_id, kind, created);

      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        owner_id TEXT,
        method TEXT NOT NULL,
        restrictions TEXT,               -- template rules copied at login (JSON) or NULL
        login_restrictions TEXT,         -- second form from the login payload (JSON) or NULL
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      );
      CREATE INDEX tokens_modified ON tokens(modified);
      CREATE INDEX tokens_account ON tokens(account_id);

      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

      CREATE TABLE system_configs (
        category TEXT PRIMARY KEY,
        doc TEXT NOT NULL,
        rev TEXT NOT NULL,
        modified INTEGER NOT NULL
      );
    `,
  },
  {
    id: '0400-limits',
    sql: `
      CREATE TABLE limits (
        account_id TEXT PRIMARY KEY,
        doc TEXT NOT NULL,               -- the limits record as JSON (never accept_charges)
        rev TEXT NOT NULL,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      );
    `,
  },
  {
    id: '0400-push',
    sql: `
      CREATE TABLE push_subscriptions (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        app_name TEXT NOT NULL,
        device_id TEXT NOT NULL,
        mobile_device_id TEXT NOT NULL,
        user_id TEXT,                    -- the user whose token registered it, if any
        doc TEXT NOT NULL,
        rev TEXT NOT NULL,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL,
        UNIQUE (account_id, app_name, device_id)
      );
      CREATE INDEX push_subscriptions_mobile ON push_subscriptions(account_id, app_name, mobile_device_id);

      -- What would have been sent to APNs/FCM (not reachable from a lab box).
      CREATE TABLE push_notifications (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        doc TEXT NOT NULL,
        created INTEGER NOT NULL
      );
      CREATE INDEX push_notifications_account ON push_notifications(account_id, created);
    `,
  },
  {
    id: '0300-resources-numbers-jobs',
    sql: `
      -- The number inventory: one row per E.164 number, owned by one account.
      CREATE TABLE phone_numbers (
        number TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        resource_id TEXT,
        state TEXT NOT NULL,
        job_id TEXT,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX phone_numbers_account ON phone_numbers(account_id, number);

      -- Bulk number jobs; seq is the ordered key watchers page on, counts stay on the row.
      CREATE TABLE resource_jobs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,             -- YYYYMM-<hex>
        account_id TEXT NOT NULL,            -- whose inventory receives the numbers
        auth_account_id TEXT,                -- who asked
        resource_id TEXT NOT NULL,
        name TEXT,
        status TEXT NOT NULL,                -- pending | running | complete | failed
        numbers TEXT NOT NULL,               -- JSON array of the numbers as given
        total INTEGER NOT NULL,
        processed INTEGER NOT NULL DEFAULT 0, -- numbers handled: the resume point
        successes INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        runner TEXT,                         -- the executor holding the job, NULL when released
        recoveries INTEGER NOT NULL DEFAULT 0,
        error TEXT,                          -- why a failed job failed
        created INTEGER NOT NULL,            -- unix ms
        started INTEGER,
        modified INTEGER NOT NULL
      );
      CREATE INDEX resource_jobs_account ON resource_jobs(account_id, seq);
      CREATE INDEX resource_jobs_status ON resource_jobs(status, modified);

      -- One row per number of a job, written in the same transaction as the job's progress.
      CREATE TABLE resource_job_results (
        job_seq INTEGER NOT NULL,
        idx INTEGER NOT NULL,                -- position in the job's numbers
        number TEXT,                         -- normalised E.164, when it could be
        reason TEXT,                         -- NULL on success
        message TEXT,
        PRIMARY KEY (job_seq, idx)
      ) WITHOUT ROWID;
      CREATE TRIGGER resource_jobs_cleanup AFTER DELETE ON resource_jobs
      BEGIN
        DELETE FROM resource_job_results WHERE job_seq = old.seq;
      END;
    `,
  },
  {
    id: '0200-webhooks',
    sql: `
      -- Account webhooks: the public document plus the columns matching needs.
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        hook TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        include_subaccounts INTEGER NOT NULL,
        doc TEXT NOT NULL,
        disable_reason TEXT,             -- set when the disabler turned it off
        rev TEXT NOT NULL,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      );
      CREATE INDEX webhooks_account ON webhooks(account_id, created);
      CREATE INDEX webhooks_hook ON webhooks(hook, enabled);

      -- The durable outbox: every outgoing HTTP delivery (webhooks, queue notifications, …).
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL,          -- stable across retries and restarts (receivers de-duplicate)
        kind TEXT NOT NULL,              -- webhook | queue | …
        account_id TEXT NOT NULL,        -- owner of the hook (or queue)
        hook_id TEXT,                    -- the webhook (or queue) it is for
        hook_name TEXT,
        event_name TEXT NOT NULL,
        url TEXT NOT NULL,
        target TEXT NOT NULL,            -- URL origin: concurrency is limited per target
        method TEXT NOT NULL,            -- get | post | put
        format TEXT NOT NULL,            -- json | form-data (get: query string)
        payload TEXT NOT NULL,           -- JSON object
        headers TEXT NOT NULL DEFAULT '{}',
        secret TEXT,                     -- Standard Webhooks signing secret
        retries INTEGER NOT NULL,        -- extra tries after the first
        tries INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL,            -- pending | sending | delivered | failed | cancelled
        due_at INTEGER NOT NULL,         -- unix ms
        owner TEXT,                      -- the sender holding it while sending
        lease_until INTEGER,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      );
      CREATE INDEX outbox_due ON outbox(due_at, id) WHERE status = 'pending';
      CREATE INDEX outbox_sending ON outbox(owner) WHERE status = 'sending';
      CREATE INDEX outbox_finished ON outbox(modified) WHERE status IN ('delivered', 'failed', 'cancelled');
      CREATE INDEX outbox_account ON outbox(account_id);

      -- One row per HTTP try; readers follow new rows with WHERE id > ?.
      CREATE TABLE delivery_attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id INTEGER NOT NULL,
        event_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        hook_id TEXT,
        hook_name TEXT,
        event_name TEXT NOT NULL,
        uri TEXT NOT NULL,
        method TEXT NOT NULL,
        result TEXT NOT NULL,            -- success | failure
        reason TEXT,
        client_error TEXT,
        http_status INTEGER,
        latency_ms INTEGER,
        try INTEGER NOT NULL,
        retries_left INTEGER NOT NULL,
        req_headers TEXT,
        req_body TEXT,
        resp_headers TEXT,
        resp_body TEXT,
        created INTEGER NOT NULL         -- unix ms
      );
      CREATE INDEX delivery_attempts_account ON delivery_attempts(kind, account_id, id);
      CREATE INDEX delivery_attempts_hook ON delivery_attempts(hook_id, id);
      CREATE INDEX delivery_attempts_created ON delivery_attempts(created);

      -- Deliveries whose retries ran out, counted by the disabler inside its window.
      CREATE TABLE webhook_failures (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id TEXT NOT NULL,
        hook_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        reason TEXT
      );
      CREATE INDEX webhook_failures_hook ON webhook_failures(hook_id, at);
      CREATE INDEX webhook_failures_account ON webhook_failures(account_id);

      -- Account overrides of system configuration categories (/v2/accounts/{id}/configs/{category}).
      CREATE TABLE account_configs (
        account_id TEXT NOT NULL,
        category TEXT NOT NULL,
        doc TEXT NOT NULL,
        rev TEXT NOT NULL,
        modified INTEGER NOT NULL,
        PRIMARY KEY (account_id, category)
      );
    `,
  },
  {
    id: '0201-outbox-claim-indexes',
    sql: `
      -- Claims read these indexes only: the next due rows (with their target), or one target's.
      DROP INDEX outbox_due;
      CREATE INDEX outbox_due ON outbox(due_at, id, target) WHERE status = 'pending';
      CREATE INDEX outbox_target_due ON outbox(target, due_at, id) WHERE status = 'pending';
    `,
  },
  {
    id: '0110-token-hashes',
    sql: `
      -- Tokens are now kept as their SHA-256 only; rows written before held usable tokens, so
      -- they are dropped (their users log in again).
      DELETE FROM tokens;
    `,
  },
  {
    id: '0202-delivery-breakers',
    sql: `
      -- The circuit breaker of each delivery target (a hook's endpoint), as the sender last set it.
      CREATE TABLE delivery_breakers (
        target TEXT PRIMARY KEY,
        hook_id TEXT,
        state TEXT NOT NULL,             -- 'open': probed one try at a time; 'closed': full concurrency
        failures INTEGER NOT NULL,       -- consecutive failed tries when it changed
        changed INTEGER NOT NULL         -- unix ms
      );
      CREATE INDEX delivery_breakers_hook ON delivery_breakers(hook_id);
    `,
  },
  {
    id: '1700-apps',
    sql: `
      -- The apps catalogue Kazoo's web UI reads (metadata only: tel serves no UI code). An app
      -- without api_url answers with the server's own /v2/ URL as the client reached it.
      CREATE TABLE apps (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        doc TEXT NOT NULL,               -- i18n, tags, api_url?, source_url?, allowed_users, masqueradable, …
        rev TEXT NOT NULL,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      );

      -- Apps an account installed and who of it may use them (Kazoo's apps_store document, a row per app).
      CREATE TABLE account_apps (
        account_id TEXT NOT NULL,
        app_id TEXT NOT NULL,
        doc TEXT NOT NULL,               -- {name, allowed_users, users, …}
        modified INTEGER NOT NULL,
        PRIMARY KEY (account_id, app_id)
      );
      CREATE INDEX account_apps_app ON account_apps(app_id);

      -- Every database offers the webhooks app, under an id that never changes.
      INSERT INTO apps (id, name, doc, rev, created, modified) VALUES (
        '9b183e89feb4bbda0141e9e3fccbe6bd',
        'webhooks',
        '{"i18n":{"en-US":{"label":"Webhooks","description":"Create, edit and debug webhooks: what fires them, where they go and how each delivery went."}},"tags":["developer"],"allowed_users":"all","masqueradable":true}',
        '1-92d6f9956d1f8637c880d88615fa7482',
        CAST(strftime('%s', 'now') AS INTEGER) * 1000,
        CAST(strftime('%s', 'now') AS INTEGER) * 1000
      );
    `,
  },
  {
    id: '1701-whitelabel',
    sql: `
      -- An account's whitelabel document; a domain (lower case) is claimed by one account at most.
      CREATE TABLE whitelabels (
        account_id TEXT PRIMARY KEY,
        domain TEXT UNIQUE,
        doc TEXT NOT NULL,
        rev TEXT NOT NULL,
        created INTEGER NOT NULL,
        modified INTEGER NOT NULL
      );

      -- Its logo and icon, as uploaded (Kazoo keeps them as attachments of the document).
      CREATE TABLE whitelabel_files (
        account_id TEXT NOT NULL,
        kind TEXT NOT NULL,              -- logo | icon
        name TEXT NOT NULL,              -- <kind>-<file name>.<extension>
        content_type TEXT NOT NULL,
        bytes BLOB NOT NULL,
        modified INTEGER NOT NULL,
        PRIMARY KEY (account_id, kind)
      );
    `,
  },
  {
    id: '1702-alerts',
    sql: `
      -- Alerts a super-duper admin addresses to accounts and users (Kazoo's system alerts).
      CREATE TABLE alerts (
        id TEXT PRIMARY KEY,
        doc TEXT NOT NULL,               -- title, message, from, to, category?, level?, metadata?, expiration_date?
        created INTEGER NOT NULL         -- unix ms
      );
    `,
  },
  {
    id: '0203-delivery-sources',
    sql: `
      -- A delivery is for a webhook or a queue (or what else enqueues): its source, not a hook.
      ALTER TABLE outbox RENAME COLUMN hook_id TO source_id;
      ALTER TABLE outbox RENAME COLUMN hook_name TO source_name;
      ALTER TABLE delivery_attempts RENAME COLUMN hook_id TO source_id;
      ALTER TABLE delivery_attempts RENAME COLUMN hook_name TO source_name;
      ALTER TABLE delivery_breakers RENAME COLUMN hook_id TO source_id;
      DROP INDEX delivery_attempts_hook;
      CREATE INDEX delivery_attempts_source ON delivery_attempts(source_id, id);
      DROP INDEX delivery_breakers_hook;
      CREATE INDEX delivery_breakers_source ON delivery_breakers(source_id);
    `,
  },
  {
    id: '0204-server-presence',
    sql: `
      -- Servers announce themselves by process identity now (store/presence.ts); the old
      -- executor records named a pid only.
      DELETE FROM meta WHERE key LIKE 'job_executor:%';
    `,
  },
  {
    id: '1500-sink-requests',
    sql: `
      -- What \`tel sink\` received: one row per request, written in batches; readers follow id.
      CREATE TABLE sink_requests (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        received INTEGER NOT NULL,       -- unix ms, when its body had been read
        listener TEXT NOT NULL,          -- host:port of the sink that took it
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        query TEXT NOT NULL,             -- without the '?'; '' when none
        headers TEXT NOT NULL,           -- JSON object, names in lower case
        body TEXT NOT NULL,              -- its start (bounded)
        body_bytes INTEGER NOT NULL,     -- its whole size
        event_id TEXT,                   -- X-Event-ID, else webhook-id
        hook_id TEXT,                    -- X-Hook-ID, else the hook of the delivery being sent with that id
        account_id TEXT,                 -- the hook's account, when the hook is known
        verdict TEXT NOT NULL,           -- valid | invalid | unsigned | unknown hook
        verdict_detail TEXT,             -- which secret matched, or why none did
        status INTEGER,                  -- the status answered; NULL: never answered (--hang)
        reply TEXT,                      -- the answer's headers and body (JSON)
        answered_by TEXT,                -- what chose the answer: default, --status, --fail-rate, rule /crm, …
        latency_ms INTEGER               -- from receipt to the answer; NULL: never answered
      );
      -- \`tel watch --account\` follows one account's requests by this range.
      CREATE INDEX sink_requests_account ON sink_requests(account_id, id);
    `,
  },
  {
    id: '1501-secret-rotation-and-rate-limits',
    sql: `
      -- A rotated secret keeps signing, beside the new one, until its grace ends.
      ALTER TABLE webhooks ADD COLUMN previous_secret TEXT;
      ALTER TABLE webhooks ADD COLUMN previous_secret_until INTEGER;    -- unix ms
      ALTER TABLE outbox ADD COLUMN previous_secret TEXT;
      ALTER TABLE outbox ADD COLUMN previous_secret_until INTEGER;
      -- Tries of the delivery's target are paced to this many a second (NULL: not paced).
      ALTER TABLE outbox ADD COLUMN rate_per_s REAL;
      -- Replays select an account's deliveries by when they were made.
      DROP INDEX outbox_account;
      CREATE INDEX outbox_account ON outbox(account_id, created);
    `,
  },
  {
    id: '0205-finished-deliveries-index',
    sql: `
      -- The same rows, told by a condition SQLite checks without building a list for each row
      -- written (an IN list made every insert and update of the outbox a fifth dearer).
      DROP INDEX outbox_finished;
      CREATE INDEX outbox_finished ON outbox(modified) WHERE status NOT IN ('pending', 'sending');
    `,
  },
  {
    id: '2400-cluster-id',
    sql: `
      -- The cluster id Kazoo's webhooks add to every payload (the \`cluster\` category's
      -- cluster_id overrides it): one per database, made with it.
      INSERT OR IGNORE INTO meta (key, value) VALUES ('cluster_id', lower(hex(randomblob(16))));
    `,
  },
  {
    id: '2401-doc-attachments',
    sql: `
      -- Files a document carries (a user's photo): removed with the document, and with its account.
      CREATE TABLE doc_attachments (
        doc_id TEXT NOT NULL,
        name TEXT NOT NULL,
        account_id TEXT NOT NULL,
        content_type TEXT NOT NULL,
        bytes BLOB NOT NULL,
        modified INTEGER NOT NULL,
        PRIMARY KEY (doc_id, name)
      );
      CREATE INDEX doc_attachments_account ON doc_attachments(account_id);
    `,
  },
  {
    id: '2402-apps-blacklist',
    sql: `
      -- Apps a reseller keeps from an account (Kazoo's apps_store blacklist): ids, as JSON.
      CREATE TABLE apps_blacklists (
        account_id TEXT PRIMARY KEY,
        blacklist TEXT NOT NULL,
        modified INTEGER NOT NULL
      );
    `,
  },
  {
    id: '3000-account-tree',
    sql: `
      -- The account tree as a closure table: a row for each account and each of its ancestors,
      -- keyed by the ancestor, then the account's name (Kazoo lists children and descendants by
      -- name), so that a page of descendants, and an account's descendants_count, are a range of
      -- the key instead of a scan of every account's tree (scripts/bench/account-tree.mjs measures
      -- it against a materialised path, which cannot list by name without sorting).
      CREATE TABLE account_tree (
        ancestor_id TEXT NOT NULL,
        name TEXT NOT NULL COLLATE NOCASE,   -- the account's name, kept equal to accounts.name
        account_id TEXT NOT NULL,
        depth INTEGER NOT NULL,              -- 1: a child of the ancestor, 2: a grandchild, …
        PRIMARY KEY (ancestor_id, name, account_id)
      ) WITHOUT ROWID;
      -- an account's ancestors (nearest first), and its rows when it moves, is renamed or deleted
      CREATE INDEX account_tree_account ON account_tree(account_id, depth);
      INSERT INTO account_tree (ancestor_id, name, account_id, depth)
        SELECT t.value, a.name, a.id, json_array_length(a.tree) - t.key FROM accounts a, json_each(a.tree) t;
      -- an account's children by name, one page at a time
      CREATE INDEX account_tree_children ON account_tree(ancestor_id, name) WHERE depth = 1;
    `,
  },
  {
    id: '3001-listing-indexes',
    sql: `
      -- Every listing reads one page of an index in its order (keyset paging): the key of each is
      -- its order's columns, ending with a unique one.
      DROP INDEX docs_account_kind;
      CREATE INDEX docs_account_kind ON docs(account_id, kind, created, id);
      DROP INDEX webhooks_account;
      CREATE INDEX webhooks_account ON webhooks(account_id, created, id);
      CREATE INDEX push_subscriptions_account ON push_subscriptions(account_id, created, id);
      DROP INDEX push_notifications_account;
      CREATE INDEX push_notifications_account ON push_notifications(account_id, created, id);
      -- Attempts are listed newest first by when they were made (Kazoo's view key), an account's
      -- or one hook's, in a time window: the window is a range of these.
      CREATE INDEX delivery_attempts_account_created ON delivery_attempts(kind, account_id, created, id);
      DROP INDEX delivery_attempts_source;
      CREATE INDEX delivery_attempts_source ON delivery_attempts(source_id, created, id);
      -- pruning finds its range by the primary key (ids grow with time): no index write per attempt for it
      DROP INDEX delivery_attempts_created;
      -- The hooks the disabler turned off, which a bulk re-enable looks for across a tree.
      CREATE INDEX webhooks_auto_disabled ON webhooks(account_id) WHERE disable_reason IS NOT NULL;
      -- A username is unique in its account, whatever its letter case: checked by a lookup.
      CREATE INDEX docs_user_name ON docs(account_id, lower(json_extract(doc, '$.username'))) WHERE kind = 'user';
    `,
  },
  {
    id: '3100-unique-lookups',
    sql: `
      -- Kazoo's uniqueness checks of documents (modules/documents/checks.ts, users/service.ts), each
      -- an index search rather than a read of every document of the account: a device's SIP
      -- username (letter case aside, as Kazoo's view keys it), a user's hotdesk id, a voicemail
      -- box's mailbox (compared as a number), a fax box's own SMTP address (in any account).
      CREATE INDEX docs_device_sip_username ON docs(account_id, lower(json_extract(doc, '$.sip.username'))) WHERE kind = 'device';
      CREATE INDEX docs_user_hotdesk ON docs(account_id, json_extract(doc, '$.hotdesk.id')) WHERE kind = 'user';
      CREATE INDEX docs_vmbox_mailbox ON docs(account_id, CAST(json_extract(doc, '$.mailbox') AS INTEGER)) WHERE kind = 'vmbox';
      CREATE INDEX docs_faxbox_smtp ON docs(json_extract(doc, '$.custom_smtp_email_address')) WHERE kind = 'faxbox';

      -- What a document has several of (a callflow's numbers and patterns) or is compared by once
      -- normalised (a device's MAC address: hex digits in lower case), one row each, kept by
      -- triggers in the transaction of every write of \`docs\`, whoever writes it. A MAC address
      -- with other characters than hex digits and the usual separators (: - . space) is kept as
      -- written (mac_address_raw), and compared by the check itself.
      CREATE TABLE doc_keys (
        account_id TEXT NOT NULL,
        field TEXT NOT NULL,                 -- numbers | patterns | mac_address | mac_address_raw
        value TEXT NOT NULL,
        doc_id TEXT NOT NULL,
        PRIMARY KEY (account_id, field, value, doc_id)
      ) WITHOUT ROWID;
      CREATE INDEX doc_keys_doc ON doc_keys(doc_id);
      -- the rows of doc_keys a document stands for
      CREATE VIEW doc_keys_of (doc_id, account_id, field, value) AS
        SELECT d.id, d.account_id, 'numbers', t.value FROM docs d, json_each(d.doc, '$.numbers') t
         WHERE d.kind = 'callflow' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'patterns', t.value FROM docs d, json_each(d.doc, '$.patterns') t
         WHERE d.kind = 'callflow' AND t.type = 'text'
        UNION ALL
        SELECT doc_id, account_id, CASE WHEN clean GLOB '*[^0-9a-f]*' THEN 'mac_address_raw' ELSE 'mac_address' END,
               CASE WHEN clean GLOB '*[^0-9a-f]*' THEN written ELSE clean END
          FROM (SELECT d.id AS doc_id, d.account_id, json_extract(d.doc, '$.mac_address') AS written,
                       lower(replace(replace(replace(replace(json_extract(d.doc, '$.mac_address'), ':', ''), '-', ''), '.', ''), ' ', '')) AS clean
                  FROM docs d WHERE d.kind = 'device' AND json_type(d.doc, '$.mac_address') = 'text')
         WHERE clean <> '';
      CREATE TRIGGER doc_keys_insert AFTER INSERT ON docs WHEN new.kind IN ('callflow', 'device')
      BEGIN
        INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER doc_keys_update AFTER UPDATE OF doc, kind, account_id ON docs
        WHEN old.kind IN ('callflow', 'device') OR new.kind IN ('callflow', 'device')
      BEGIN
        DELETE FROM doc_keys WHERE doc_id = old.id;
        INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER doc_keys_delete AFTER DELETE ON docs WHEN old.kind IN ('callflow', 'device')
      BEGIN
        DELETE FROM doc_keys WHERE doc_id = old.id;
      END;
      INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of;
    `,
  },
  {
    id: '3100-alert-audiences',
    sql: `
      -- Whom an alert is for, a row per entry of its \`to\` as "type|value" (the value of a
      -- descendants entry: "ancestor,group"), kept by triggers with the alerts. A caller's alerts,
      -- newest first, are a merge of one range of this key per audience the caller is in (the
      -- account's, its ancestors' descendants, everyone's…), read a page at a time.
      CREATE TABLE alert_audiences (
        audience TEXT NOT NULL,
        created INTEGER NOT NULL,            -- the alert's (unix ms)
        alert_id TEXT NOT NULL,
        expires INTEGER,                     -- its expiration_date (Gregorian seconds); NULL: never
        PRIMARY KEY (audience, created, alert_id)
      ) WITHOUT ROWID;
      CREATE INDEX alert_audiences_alert ON alert_audiences(alert_id);
      -- the rows of alert_audiences an alert stands for
      CREATE VIEW alert_audiences_of (audience, created, alert_id, expires) AS
        SELECT json_extract(t.value, '$.type') || '|' || CASE json_type(t.value, '$.value')
                 WHEN 'array' THEN (SELECT group_concat(v.value, ',') FROM json_each(t.value, '$.value') v)
                 ELSE json_extract(t.value, '$.value') END,
               a.created, a.id,
               CASE WHEN json_type(a.doc, '$.expiration_date') IN ('integer', 'real') THEN json_extract(a.doc, '$.expiration_date') END
          FROM alerts a, json_each(a.doc, '$.to') t
         WHERE json_type(t.value, '$.type') = 'text' AND json_type(t.value, '$.value') IN ('text', 'array');
      CREATE TRIGGER alert_audiences_insert AFTER INSERT ON alerts
      BEGIN
        INSERT OR IGNORE INTO alert_audiences SELECT * FROM alert_audiences_of WHERE alert_id = new.id AND audience IS NOT NULL;
      END;
      CREATE TRIGGER alert_audiences_update AFTER UPDATE ON alerts
      BEGIN
        DELETE FROM alert_audiences WHERE alert_id = old.id;
        INSERT OR IGNORE INTO alert_audiences SELECT * FROM alert_audiences_of WHERE alert_id = new.id AND audience IS NOT NULL;
      END;
      CREATE TRIGGER alert_audiences_delete AFTER DELETE ON alerts
      BEGIN
        DELETE FROM alert_audiences WHERE alert_id = old.id;
      END;
      INSERT OR IGNORE INTO alert_audiences SELECT * FROM alert_audiences_of WHERE audience IS NOT NULL;
    `,
  },
  {
    id: '2900-user-login-lookup',
    sql: `
      -- A login finds its user by the hash of the form it sends (users/credentials.ts), not by
      -- trying each user of the account.
      CREATE INDEX docs_user_login_md5 ON docs(json_extract(pvt, '$.pvt_login.md5')) WHERE kind = 'user';
      CREATE INDEX docs_user_login_sha1 ON docs(json_extract(pvt, '$.pvt_login.sha1')) WHERE kind = 'user';
      -- Users whose password is stored as earlier versions did, until they log in once.
      CREATE INDEX docs_user_legacy_login ON docs(account_id) WHERE kind = 'user' AND json_extract(pvt, '$.pvt_login') IS NULL
        AND (json_extract(pvt, '$.pvt_credentials') IS NOT NULL OR json_extract(pvt, '$.pvt_md5_auth') IS NOT NULL);
    `,
  },
  {
    id: '3200-ip-auth-lookup',
    sql: `
      -- The addresses that authenticate calls by IP, as Kazoo's sip_auth view lookup_by_ip has
      -- them: each gateway of a peering account resource (its inbound_ip, else its server) and a
      -- device authenticated by IP (sip.inbound_ip, else sip.ip), unless disabled; one row each,
      -- kept by triggers in the transaction of every write of \`docs\`. A peering resource's
      -- gateway is checked against them by one search of the key (resources/service.ts).
      -- Global resources are kept under the account id 'offnet' and never peer.
      CREATE TABLE ip_auth (
        ip TEXT NOT NULL,
        doc_id TEXT NOT NULL,
        PRIMARY KEY (ip, doc_id)
      ) WITHOUT ROWID;
      CREATE INDEX ip_auth_doc ON ip_auth(doc_id);
      -- the rows of ip_auth a document stands for
      CREATE VIEW ip_auth_of (doc_id, ip) AS
        SELECT doc_id, ip FROM (
          SELECT d.id AS doc_id, coalesce(nullif(json_extract(g.value, '$.inbound_ip'), ''), json_extract(g.value, '$.server')) AS ip
            FROM docs d, json_each(d.doc, '$.gateways') g
           WHERE d.kind = 'resource' AND d.account_id <> 'offnet' AND json_type(d.doc, '$.peer') = 'true'
             AND json_type(d.doc, '$.enabled') IS NOT 'false' AND g.type = 'object'
          UNION ALL
          SELECT d.id, coalesce(nullif(json_extract(d.doc, '$.sip.inbound_ip'), ''), json_extract(d.doc, '$.sip.ip'))
            FROM docs d
           WHERE d.kind = 'device' AND json_extract(d.doc, '$.sip.method') = 'ip' AND json_type(d.doc, '$.enabled') IS NOT 'false'
             AND nullif(json_extract(d.doc, '$.sip.ip'), '') IS NOT NULL)
         WHERE typeof(ip) = 'text' AND ip <> '';
      CREATE TRIGGER ip_auth_insert AFTER INSERT ON docs WHEN new.kind IN ('resource', 'device')
      BEGIN
        INSERT OR IGNORE INTO ip_auth (doc_id, ip) SELECT doc_id, ip FROM ip_auth_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER ip_auth_update AFTER UPDATE OF doc, kind, account_id ON docs
        WHEN old.kind IN ('resource', 'device') OR new.kind IN ('resource', 'device')
      BEGIN
        DELETE FROM ip_auth WHERE doc_id = old.id;
        INSERT OR IGNORE INTO ip_auth (doc_id, ip) SELECT doc_id, ip FROM ip_auth_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER ip_auth_delete AFTER DELETE ON docs WHEN old.kind IN ('resource', 'device')
      BEGIN
        DELETE FROM ip_auth WHERE doc_id = old.id;
      END;
      INSERT OR IGNORE INTO ip_auth (doc_id, ip) SELECT doc_id, ip FROM ip_auth_of;
    `,
  },
  {
    id: '3300-account-moves',
    sql: `
      -- An account move under way: its subtree is rewritten a slice at a time (accounts/move.ts),
      -- the moved account first; a process that stops half-way leaves the row, and the next server
      -- or move finishes the rewrite. The descendants' lines follow from the moved account's own.
      CREATE TABLE account_moves (
        account_id TEXT PRIMARY KEY,
        started INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    id: '3301-attempts-peer-public',
    sql: `
      -- Whether what answered a try was on a public address: what an endpoint on this machine or a
      -- private network answers is shown to super-duper admins only (delivery/attempts.ts).
      -- Tries recorded before are not known to have been public (NULL).
      ALTER TABLE delivery_attempts ADD COLUMN peer_public INTEGER;
    `,
  },
  {
    id: '3500-vm-messages',
    sql: `
      -- Voicemail messages (Kazoo's mailbox_message documents): a box's are listed newest first
      -- from the first index, an account's from the second, and counted by folder from the third.
      CREATE TABLE vm_messages (
        id TEXT PRIMARY KEY,             -- YYYYMM- and 32 hex digits, also its media_id
        account_id TEXT NOT NULL,
        box_id TEXT NOT NULL,
        folder TEXT NOT NULL,            -- new | saved | deleted
        timestamp INTEGER NOT NULL,      -- when it was left, Gregorian seconds
        metadata TEXT NOT NULL,          -- JSON, as Kazoo answers it
        created INTEGER NOT NULL         -- unix ms
      );
      CREATE INDEX vm_messages_box ON vm_messages(account_id, box_id, timestamp, id);
      CREATE INDEX vm_messages_account ON vm_messages(account_id, timestamp, id);
      CREATE INDEX vm_messages_folder ON vm_messages(account_id, box_id, folder);
    `,
  },
  {
    id: '3500-registrations',
    sql: `
      -- SIP registrations (Kazoo's registrar keeps them in memory; here the simulations make them):
      -- one a username of an account, live until expires_at, swept by that index once lapsed.
      CREATE TABLE registrations (
        account_id TEXT NOT NULL,
        username TEXT NOT NULL,          -- lower case
        device_id TEXT NOT NULL,
        expires_at INTEGER NOT NULL,     -- unix ms
        fields TEXT NOT NULL,            -- JSON, as cb_registrations answers it
        PRIMARY KEY (account_id, username)
      );
      CREATE INDEX registrations_expiry ON registrations(expires_at);
      CREATE INDEX registrations_device ON registrations(account_id, device_id);
    `,
  },
  {
    id: '3500-master-apps',
    sql: `
      -- A master account has the catalogue's apps installed for those their allowed_users names
      -- (apps-store/service.ts installDefaultApps, on a new master): the existing ones too.
      INSERT OR IGNORE INTO account_apps (account_id, app_id, doc, modified)
        SELECT a.id, p.id, json_object('allowed_users', json_extract(p.doc, '$.allowed_users'), 'users', json('[]'), 'name', p.name),
               CAST(strftime('%s', 'now') AS INTEGER) * 1000
          FROM accounts a, apps p
         WHERE a.parent_id IS NULL AND a.superduper = 1 AND json_extract(p.doc, '$.allowed_users') IN ('all', 'admins');
    `,
  },
  {
    id: '4000-crossbar-lookups',
    sql: `
      -- What the rest of Kazoo's crossbar modules look documents up by, each a search of a key
      -- rather than a read of every document of the account.

      -- doc_keys (migration 3100) also holds a user's directories (\`directories\`: the directory's
      -- id, Kazoo's directories/users_listing), a device's hotdesk users (\`hotdesk_users\`: the
      -- user's id, Kazoo's hotdesks/crossbar_listing) and a conference's numbers
      -- (\`conference_numbers\`: its own, its members' and its moderators', unique in the account).
      DROP TRIGGER doc_keys_insert;
      DROP TRIGGER doc_keys_update;
      DROP TRIGGER doc_keys_delete;
      DROP VIEW doc_keys_of;
      CREATE VIEW doc_keys_of (doc_id, account_id, field, value) AS
        SELECT d.id, d.account_id, 'numbers', t.value FROM docs d, json_each(d.doc, '$.numbers') t
         WHERE d.kind = 'callflow' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'patterns', t.value FROM docs d, json_each(d.doc, '$.patterns') t
         WHERE d.kind = 'callflow' AND t.type = 'text'
        UNION ALL
        SELECT doc_id, account_id, CASE WHEN clean GLOB '*[^0-9a-f]*' THEN 'mac_address_raw' ELSE 'mac_address' END,
               CASE WHEN clean GLOB '*[^0-9a-f]*' THEN written ELSE clean END
          FROM (SELECT d.id AS doc_id, d.account_id, json_extract(d.doc, '$.mac_address') AS written,
                       lower(replace(replace(replace(replace(json_extract(d.doc, '$.mac_address'), ':', ''), '-', ''), '.', ''), ' ', '')) AS clean
                  FROM docs d WHERE d.kind = 'device' AND json_type(d.doc, '$.mac_address') = 'text')
         WHERE clean <> ''
        UNION ALL
        SELECT d.id, d.account_id, 'directories', t.key FROM docs d, json_each(d.doc, '$.directories') t
         WHERE d.kind = 'user' AND json_type(d.doc, '$.directories') = 'object'
        UNION ALL
        SELECT d.id, d.account_id, 'hotdesk_users', t.key FROM docs d, json_each(d.doc, '$.hotdesk.users') t
         WHERE d.kind = 'device' AND json_type(d.doc, '$.hotdesk.users') = 'object'
        UNION ALL
        SELECT d.id, d.account_id, 'conference_numbers', t.value FROM docs d, json_each(d.doc, '$.conference_numbers') t
         WHERE d.kind = 'conference' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'conference_numbers', t.value FROM docs d, json_each(d.doc, '$.member.numbers') t
         WHERE d.kind = 'conference' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'conference_numbers', t.value FROM docs d, json_each(d.doc, '$.moderator.numbers') t
         WHERE d.kind = 'conference' AND t.type = 'text';
      CREATE TRIGGER doc_keys_insert AFTER INSERT ON docs WHEN new.kind IN ('callflow', 'device', 'user', 'conference')
      BEGIN
        INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER doc_keys_update AFTER UPDATE OF doc, kind, account_id ON docs
        WHEN old.kind IN ('callflow', 'device', 'user', 'conference') OR new.kind IN ('callflow', 'device', 'user', 'conference')
      BEGIN
        DELETE FROM doc_keys WHERE doc_id = old.id;
        INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER doc_keys_delete AFTER DELETE ON docs WHEN old.kind IN ('callflow', 'device', 'user', 'conference')
      BEGIN
        DELETE FROM doc_keys WHERE doc_id = old.id;
      END;
      INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value)
        SELECT * FROM doc_keys_of WHERE field IN ('directories', 'hotdesk_users', 'conference_numbers');

      -- A list's entries (Kazoo's lists/entries), in creation order.
      CREATE INDEX docs_list_entries ON docs(account_id, json_extract(doc, '$.list_id'), created, id) WHERE kind = 'list_entry';
      -- An account's resource selectors by name then resource, and by resource then name (Kazoo's
      -- resource_selectors views, counted or listed a page at a time).
      CREATE INDEX docs_selectors_by_name ON docs(account_id, json_extract(doc, '$.name'), json_extract(doc, '$.resource'), id)
        WHERE kind = 'resource_selector';
      CREATE INDEX docs_selectors_by_resource ON docs(account_id, json_extract(doc, '$.resource'), json_extract(doc, '$.name'), id)
        WHERE kind = 'resource_selector';
      -- A ratedeck's rates by prefix: a number's rates are those of its leading digits (Kazoo's rates/lookup).
      CREATE INDEX docs_rates_prefix ON docs(account_id, json_extract(doc, '$.prefix')) WHERE kind = 'rate';
      -- The users who are agents, those with \`queues\` (Kazoo's agents/crossbar_listing), in creation order.
      CREATE INDEX docs_agents ON docs(account_id, created, id) WHERE kind = 'user' AND json_type(doc, '$.queues') IN ('array', 'object');

      -- The calls a click-to-call document placed (Kazoo keeps them in the account's monthly
      -- database, \`c2c_history\`), newest first.
      CREATE TABLE clicktocall_history (
        clicktocall_id TEXT NOT NULL,
        created INTEGER NOT NULL,            -- unix ms
        id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        doc TEXT NOT NULL,                   -- {timestamp, contact, call_id, result, cause?}
        PRIMARY KEY (clicktocall_id, created, id)
      ) WITHOUT ROWID;
      CREATE INDEX clicktocall_history_account ON clicktocall_history(account_id);

      -- The client addresses that log in to an account without credentials (\`PUT /v2/ip_auth\`):
      -- each \`ips[].ip\` of an account's document (Kazoo's accounts/listing_by_ip), kept by triggers.
      CREATE TABLE account_ips (
        ip TEXT NOT NULL,
        account_id TEXT NOT NULL,
        owner_id TEXT,
        PRIMARY KEY (ip, account_id)
      ) WITHOUT ROWID;
      CREATE INDEX account_ips_account ON account_ips(account_id);
      CREATE VIEW account_ips_of (account_id, ip, owner_id) AS
        SELECT a.id, json_extract(t.value, '$.ip'), json_extract(t.value, '$.owner_id')
          FROM accounts a, json_each(a.doc, '$.ips') t
         WHERE json_type(a.doc, '$.ips') = 'array' AND json_type(t.value, '$.ip') = 'text';
      CREATE TRIGGER account_ips_insert AFTER INSERT ON accounts
      BEGIN
        INSERT OR IGNORE INTO account_ips (account_id, ip, owner_id) SELECT * FROM account_ips_of WHERE account_id = new.id;
      END;
      CREATE TRIGGER account_ips_update AFTER UPDATE OF doc ON accounts
      BEGIN
        DELETE FROM account_ips WHERE account_id = old.id;
        INSERT OR IGNORE INTO account_ips (account_id, ip, owner_id) SELECT * FROM account_ips_of WHERE account_id = new.id;
      END;
      CREATE TRIGGER account_ips_delete AFTER DELETE ON accounts
      BEGIN
        DELETE FROM account_ips WHERE account_id = old.id;
      END;
      INSERT OR IGNORE INTO account_ips (account_id, ip, owner_id) SELECT * FROM account_ips_of;
    `,
  },
  {
    id: '4001-user-queue-keys',
    sql: `
      -- The queues each user answers (a queue's roster, its agents) kept in doc_keys too
      -- (\`queues\`: the queue's id), so that a queue's agents are one search of the key rather
      -- than a read of every user of the account.
      DROP TRIGGER doc_keys_insert;
      DROP TRIGGER doc_keys_update;
      DROP TRIGGER doc_keys_delete;
      DROP VIEW doc_keys_of;
      CREATE VIEW doc_keys_of (doc_id, account_id, field, value) AS
        SELECT d.id, d.account_id, 'numbers', t.value FROM docs d, json_each(d.doc, '$.numbers') t
         WHERE d.kind = 'callflow' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'patterns', t.value FROM docs d, json_each(d.doc, '$.patterns') t
         WHERE d.kind = 'callflow' AND t.type = 'text'
        UNION ALL
        SELECT doc_id, account_id, CASE WHEN clean GLOB '*[^0-9a-f]*' THEN 'mac_address_raw' ELSE 'mac_address' END,
               CASE WHEN clean GLOB '*[^0-9a-f]*' THEN written ELSE clean END
          FROM (SELECT d.id AS doc_id, d.account_id, json_extract(d.doc, '$.mac_address') AS written,
                       lower(replace(replace(replace(replace(json_extract(d.doc, '$.mac_address'), ':', ''), '-', ''), '.', ''), ' ', '')) AS clean
                  FROM docs d WHERE d.kind = 'device' AND json_type(d.doc, '$.mac_address') = 'text')
         WHERE clean <> ''
        UNION ALL
        SELECT d.id, d.account_id, 'directories', t.key FROM docs d, json_each(d.doc, '$.directories') t
         WHERE d.kind = 'user' AND json_type(d.doc, '$.directories') = 'object'
        UNION ALL
        SELECT d.id, d.account_id, 'hotdesk_users', t.key FROM docs d, json_each(d.doc, '$.hotdesk.users') t
         WHERE d.kind = 'device' AND json_type(d.doc, '$.hotdesk.users') = 'object'
        UNION ALL
        SELECT d.id, d.account_id, 'conference_numbers', t.value FROM docs d, json_each(d.doc, '$.conference_numbers') t
         WHERE d.kind = 'conference' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'conference_numbers', t.value FROM docs d, json_each(d.doc, '$.member.numbers') t
         WHERE d.kind = 'conference' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'conference_numbers', t.value FROM docs d, json_each(d.doc, '$.moderator.numbers') t
         WHERE d.kind = 'conference' AND t.type = 'text'
        UNION ALL
        SELECT d.id, d.account_id, 'queues', t.value FROM docs d, json_each(d.doc, '$.queues') t
         WHERE d.kind = 'user' AND t.type = 'text';
      CREATE TRIGGER doc_keys_insert AFTER INSERT ON docs WHEN new.kind IN ('callflow', 'device', 'user', 'conference')
      BEGIN
        INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER doc_keys_update AFTER UPDATE OF doc, kind, account_id ON docs
        WHEN old.kind IN ('callflow', 'device', 'user', 'conference') OR new.kind IN ('callflow', 'device', 'user', 'conference')
      BEGIN
        DELETE FROM doc_keys WHERE doc_id = old.id;
        INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of WHERE doc_id = new.id;
      END;
      CREATE TRIGGER doc_keys_delete AFTER DELETE ON docs WHEN old.kind IN ('callflow', 'device', 'user', 'conference')
      BEGIN
        DELETE FROM doc_keys WHERE doc_id = old.id;
      END;
      INSERT OR IGNORE INTO doc_keys (doc_id, account_id, field, value) SELECT * FROM doc_keys_of WHERE field = 'queues';
    `,
  },
  {
    id: '4100-switch-records',
    sql: `
      -- What a switch records of the calls tel simulates. CDRs: one row a call leg, written when it
      -- ends, as Kazoo's cdr app stores it (its id is YYYYMM-<call_id>). Each listing reads one
      -- index in its order: the account's by when the CDR was written (Kazoo's pvt_created), a
      -- user's or a device's the same way, an interaction's legs by channel time, and the
      -- interactions themselves by their first leg (first_leg = 1), as Kazoo's reduce picks it.
      CREATE TABLE cdrs (
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        created INTEGER NOT NULL,            -- unix ms
        owner_id TEXT,                       -- custom_channel_vars.owner_id
        authorizing_id TEXT,                 -- custom_channel_vars.authorizing_id
        interaction_id TEXT NOT NULL,
        interaction_time INTEGER NOT NULL,   -- Gregorian seconds
        channel_time INTEGER NOT NULL,       -- channel_created_time (unix microseconds)
        first_leg INTEGER NOT NULL,          -- 1: the interaction's earliest leg
        doc TEXT NOT NULL,
        PRIMARY KEY (account_id, id)
      );
      CREATE INDEX cdrs_created ON cdrs(account_id, created, id);
      CREATE INDEX cdrs_owner ON cdrs(account_id, owner_id, created, id) WHERE owner_id IS NOT NULL;
      CREATE INDEX cdrs_authorizing ON cdrs(account_id, authorizing_id, created, id) WHERE authorizing_id IS NOT NULL;
      CREATE INDEX cdrs_interaction ON cdrs(account_id, interaction_id, channel_time, id);
      CREATE INDEX cdrs_interactions ON cdrs(account_id, interaction_time, interaction_id) WHERE first_leg = 1;

      -- The legs of calls in progress (Kazoo asks its switches; tel keeps them): a row a leg until
      -- it hangs up. \`doc\` holds the channel as Kazoo answers it and what ending it needs.
      CREATE TABLE channels (
        account_id TEXT NOT NULL,
        uuid TEXT NOT NULL,                  -- the leg's call id
        call_id TEXT NOT NULL,               -- the simulated call it belongs to (its first leg's)
        owner_id TEXT,
        authorizing_id TEXT,
        created INTEGER NOT NULL,            -- unix ms
        doc TEXT NOT NULL,
        PRIMARY KEY (account_id, uuid)
      );
      CREATE INDEX channels_account ON channels(account_id, created, uuid);
      CREATE INDEX channels_call ON channels(account_id, call_id);
      CREATE INDEX channels_owner ON channels(account_id, owner_id, created, uuid) WHERE owner_id IS NOT NULL;
      CREATE INDEX channels_authorizing ON channels(account_id, authorizing_id, created, uuid) WHERE authorizing_id IS NOT NULL;

      -- Parking slots holding a call (callflow's parked_calls document, one entry a slot).
      CREATE TABLE parked_calls (
        account_id TEXT NOT NULL,
        slot TEXT NOT NULL,
        created INTEGER NOT NULL,
        doc TEXT NOT NULL,
        PRIMARY KEY (account_id, slot)
      ) WITHOUT ROWID;

      -- The devices a user owns (a user's quickcall rings them, a user's presence is theirs).
      CREATE INDEX docs_device_owner ON docs(account_id, json_extract(doc, '$.owner_id')) WHERE kind = 'device';

      -- What SIP phones watch (their SUBSCRIBEs, which the presence servers keep): one row a
      -- subscription, until it expires.
      CREATE TABLE presence_subscriptions (
        account_id TEXT NOT NULL,
        presentity TEXT NOT NULL,            -- the user part watched (an extension, a presence id)
        package TEXT NOT NULL,               -- dialog | presence | message-summary
        call_id TEXT NOT NULL,               -- the SUBSCRIBE dialog's
        watcher TEXT NOT NULL,               -- who watches: user@realm
        created INTEGER NOT NULL,            -- unix ms
        expires INTEGER NOT NULL,            -- unix ms
        doc TEXT NOT NULL,                   -- the last NOTIFY sent: {body, reply, sequence}
        PRIMARY KEY (account_id, presentity, package, call_id)
      ) WITHOUT ROWID;

      -- Presence states set by hand (Kazoo's manual_presence document): presence id → state.
      CREATE TABLE manual_presence (
        account_id TEXT NOT NULL,
        presence_id TEXT NOT NULL,
        state TEXT NOT NULL,
        modified INTEGER NOT NULL,
        PRIMARY KEY (account_id, presence_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    id: '4200-number-documents-pool',
    sql: `
      -- A number's own document, as Kazoo keeps one per number: the fields its account set (cnam,
      -- e911, prepend, its own), the features those turned on, what uses it (a callflow), and the
      -- pool it was bought from, which it goes back to when released (numbers/lifecycle.ts).
      ALTER TABLE phone_numbers ADD COLUMN doc TEXT;
      ALTER TABLE phone_numbers ADD COLUMN features TEXT;
      ALTER TABLE phone_numbers ADD COLUMN used_by TEXT;
      ALTER TABLE phone_numbers ADD COLUMN pool_id TEXT;

      -- The simulated carrier's numbers, offered to an account (a reseller, the master) and the
      -- accounts it resells to: found by a search, bought (moved to the buyer's inventory) by an
      -- activation. A number is in the pool or in an inventory, never both.
      CREATE TABLE number_pool (
        number TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        created INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX number_pool_account ON number_pool(account_id, number);

      -- A callflow that routes a number of its account uses it (Kazoo's track_assignment): used_by
      -- follows the callflow's numbers as it is created, changed and deleted.
      CREATE TRIGGER callflow_numbers_insert AFTER INSERT ON docs WHEN new.kind = 'callflow'
      BEGIN
        UPDATE phone_numbers SET used_by = 'callflow'
        WHERE account_id = new.account_id AND number IN (SELECT value FROM json_each(new.doc, '$.numbers'));
      END;
      CREATE TRIGGER callflow_numbers_update AFTER UPDATE OF doc ON docs WHEN new.kind = 'callflow'
      BEGIN
        UPDATE phone_numbers SET used_by = NULL
        WHERE account_id = old.account_id AND used_by = 'callflow' AND number IN (SELECT value FROM json_each(old.doc, '$.numbers'))
          AND number NOT IN (SELECT value FROM json_each(new.doc, '$.numbers'));
        UPDATE phone_numbers SET used_by = 'callflow'
        WHERE account_id = new.account_id AND number IN (SELECT value FROM json_each(new.doc, '$.numbers'));
      END;
      CREATE TRIGGER callflow_numbers_delete AFTER DELETE ON docs WHEN old.kind = 'callflow'
      BEGIN
        UPDATE phone_numbers SET used_by = NULL
        WHERE account_id = old.account_id AND used_by = 'callflow' AND number IN (SELECT value FROM json_each(old.doc, '$.numbers'));
      END;
    `,
  },
  {
    id: '4201-login-attempts',
    sql: `
      -- Logins tried on an account, as its crossbar.auth settings ask them logged (auth/auth-modules.ts):
      -- listed newest first by security/attempts (and multi_factor/attempts, by auth_type), kept a month.
      CREATE TABLE login_attempts (
        id TEXT PRIMARY KEY,              -- YYYYMM-<hex>, as Kazoo's monthly databases key them
        account_id TEXT NOT NULL,
        auth_type TEXT NOT NULL,
        created INTEGER NOT NULL,         -- unix ms
        doc TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX login_attempts_account ON login_attempts(account_id, created, id);
      CREATE INDEX login_attempts_type ON login_attempts(account_id, auth_type, created, id);
    `,
  },
  {
    id: '4202-ledgers',
    sql: `
      -- Credits and debits an account's reseller writes (PUT ledgers/credit|debit, ledgers/service.ts),
      -- summed by GET ledgers (a month, by service) and ledgers/total (all of them).
      CREATE TABLE ledgers (
        id TEXT PRIMARY KEY,              -- YYYYMM-<md5>, as Kazoo names a ledger
        account_id TEXT NOT NULL,         -- whose ledger: the account's, or its reseller's copy
        service TEXT NOT NULL,            -- source.service: adjustments, payments, per-minute-voip, …
        ledger_type TEXT NOT NULL,        -- credit | debit
        units INTEGER NOT NULL,           -- the amount in ten-thousandths of the currency, never negative
        created INTEGER NOT NULL,         -- unix ms
        doc TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX ledgers_account ON ledgers(account_id, created, id);
      CREATE INDEX ledgers_service ON ledgers(account_id, service, created, id);
    `,
  },
  {
    id: '4300-cccps-search',
    sql: `
      -- Calling-card callback entries: a PIN or caller ID names one active entry across accounts
      -- (Kazoo's cccps views), found by one index look-up.
      CREATE INDEX docs_cccp_pin ON docs(json_extract(doc, '$.pin')) WHERE kind = 'cccp';
      CREATE INDEX docs_cccp_cid ON docs(json_extract(doc, '$.cid')) WHERE kind = 'cccp';
      -- Accounts searched by realm (Kazoo's search_by_realm: lower case, letters and digits only).
      CREATE INDEX accounts_realm_search ON accounts(replace(replace(replace(realm, '.', ''), '-', ''), '_', ''));
    `,
  },
  {
    id: '4301-password-resets',
    sql: `
      -- Password reset links asked for (PUT user_auth/recovery): each id kept as its SHA-256, used
      -- once, for a day (older rows are dropped when a new one is asked for).
      CREATE TABLE password_resets (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        created INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX password_resets_created ON password_resets(created);
    `,
  },
  {
    id: '4302-cdrs-one-interaction-index',
    sql: `
      -- The interactions listing (first legs) and an interaction's legs read one index: interaction
      -- ids begin with their Gregorian second (interaction_time), so a leg's key can start with it
      -- too. Every b-tree a CDR goes into writes its last page again at each commit of the calls:
      -- one fewer took what a delivery writes from 23.5 to 22.0 KiB
      -- (scripts/bench/delivery-cost.mjs).
      DROP INDEX cdrs_interaction;
      DROP INDEX cdrs_interactions;
      CREATE INDEX cdrs_interaction ON cdrs(account_id, first_leg, interaction_time, interaction_id, channel_time, id);
    `,
  },
  {
    id: '4303-phone-numbers-pool-index',
    sql: `
      -- The numbers accounts bought from a pool, by pool: a lab file lists them under the pool's
      -- account, and without it each account's read went through the whole inventory (tel export
      -- of a 10,000-account lab with 100,000 numbers took 179 s).
      CREATE INDEX phone_numbers_pool ON phone_numbers(pool_id, number) WHERE pool_id IS NOT NULL;
    `,
  },
  {
    id: '4304-resource-job-numbers',
    sql: `
      -- A job's numbers (100,000 of them are 1.5 MB of JSON) in a table of their own: SQLite builds
      -- a whole row again at each update, and reads through it to any column stored after, so each
      -- batch's progress went through the job's numbers once more, and so did each listing of jobs.
      -- A 100,000-number job took 438-533 ms from its request to its end; 377-449 ms without.
      CREATE TABLE resource_job_numbers (
        job_seq INTEGER PRIMARY KEY,
        numbers TEXT NOT NULL                -- JSON array of the numbers as given
      );
      INSERT INTO resource_job_numbers (job_seq, numbers) SELECT seq, numbers FROM resource_jobs;
      ALTER TABLE resource_jobs DROP COLUMN numbers;
      CREATE TRIGGER resource_job_numbers_cleanup AFTER DELETE ON resource_jobs
      BEGIN
        DELETE FROM resource_job_numbers WHERE job_seq = old.seq;
      END;
    `,
  },
];
