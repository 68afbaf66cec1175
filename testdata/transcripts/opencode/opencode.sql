-- OpenCode's database (opencode.db) as its migrations leave it
-- (packages/opencode/src/session/session.sql.ts, project/project.sql.ts),
-- with rows written by hand in the likeness of what OpenCode writes:
-- every part type, a subagent's session and its own subagent's, a
-- synthetic text, a turn still running, an abandoned one, a secret, and
-- hostile rows. Times are milliseconds; T = 1795000000000
-- (2026-11-18T11:06:40Z). The tests build the database from this text
-- at test time; no binary database is kept.
CREATE TABLE `project` (
	`id` text PRIMARY KEY NOT NULL,
	`worktree` text NOT NULL,
	`vcs` text,
	`name` text,
	`icon_url` text,
	`icon_color` text,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`time_initialized` integer,
	`sandboxes` text NOT NULL,
	`commands` text
);
CREATE TABLE `session` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`parent_id` text,
	`slug` text NOT NULL,
	`directory` text NOT NULL,
	`title` text NOT NULL,
	`version` text NOT NULL,
	`share_url` text,
	`summary_additions` integer,
	`summary_deletions` integer,
	`summary_files` integer,
	`summary_diffs` text,
	`revert` text,
	`permission` text,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`time_compacting` integer,
	`time_archived` integer,
	`workspace_id` text,
	FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
CREATE INDEX `session_workspace_idx` ON `session` (`workspace_id`);
CREATE TABLE `message` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE TABLE `part` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`session_id` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE TABLE `todo` (
	`session_id` text NOT NULL,
	`content` text NOT NULL,
	`status` text NOT NULL,
	`priority` text NOT NULL,
	`position` integer NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	PRIMARY KEY(`session_id`, `position`),
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE INDEX `todo_session_idx` ON `todo` (`session_id`);
CREATE TABLE `permission` (
	`project_id` text PRIMARY KEY NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE TABLE `session_share` (
	`session_id` text PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`secret` text NOT NULL,
	`url` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);

INSERT INTO project VALUES ('prj_shop', '/home/dev/shop', 'git', NULL, NULL, NULL, 1795000000000, 1795000000000, 1795000000000, '[]', NULL);
INSERT INTO project VALUES ('prj_blog', '/home/dev/blog', 'git', NULL, NULL, NULL, 1795000000000, 1795000000000, 1795000000000, '[]', NULL);
INSERT INTO project VALUES ('prj_api', '/home/dev/api', 'git', NULL, NULL, NULL, 1795000000000, 1795000000000, 1795000000000, '[]', NULL);
INSERT INTO project VALUES ('global', '/', 'git', NULL, NULL, NULL, 1795000000000, 1795000000000, 1795000000000, '[]', NULL);
-- A root session: every part type, a subagent, a secret, a compaction.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_alpha', 'prj_shop', NULL, 'alpha', '/home/dev/shop', 'Fix the flaky payments retry test', '1.1.13', 1795000001000, 1795000038000);
INSERT INTO message VALUES ('msg_a01', 'ses_alpha', 1795000001000, 1795000001000, '{"role":"user","time":{"created":1795000001000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_a01_1', 'msg_a01', 'ses_alpha', 1795000001000, 1795000001400, '{"type":"text","text":"The retry test in payments fails on CI about one run in five, can you look at it?","time":{"start":1795000001000,"end":1795000001400}}');
-- a synthetic part: OpenCode's own text in the prompt (an attached file read for it)
INSERT INTO part VALUES ('prt_a01_2', 'msg_a01', 'ses_alpha', 1795000001001, 1795000001401, '{"type":"text","text":"Called the Read tool with the following input: {\"filePath\":\"/home/dev/shop/payments/retry_test.go\"}","time":{"start":1795000001001,"end":1795000001401},"synthetic":true}');
INSERT INTO part VALUES ('prt_a01_3', 'msg_a01', 'ses_alpha', 1795000001002, 1795000001002, '{"type":"file","mime":"text/plain","filename":"retry_test.go","url":"file:///home/dev/shop/payments/retry_test.go","source":{"type":"file","path":"payments/retry_test.go","text":{"value":"@payments/retry_test.go","start":0,"end":23}}}');
INSERT INTO part VALUES ('prt_a01_4', 'msg_a01', 'ses_alpha', 1795000001003, 1795000001003, '{"type":"agent","name":"build"}');
INSERT INTO message VALUES ('msg_a02', 'ses_alpha', 1795000002000, 1795000009000, '{"role":"assistant","time":{"created":1795000002000,"completed":1795000009000},"parentID":"msg_a01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_a02_1', 'msg_a02', 'ses_alpha', 1795000002000, 1795000002000, '{"type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}');
INSERT INTO part VALUES ('prt_a02_2', 'msg_a02', 'ses_alpha', 1795000002100, 1795000002400, '{"type":"reasoning","text":"The failure rate suggests timing; read the test first.","time":{"start":1795000002100,"end":1795000002400}}');
INSERT INTO part VALUES ('prt_a02_3', 'msg_a02', 'ses_alpha', 1795000002500, 1795000002900, '{"type":"text","text":"Let me read the test and run it a few times to see the failure.","time":{"start":1795000002500,"end":1795000002900}}');
INSERT INTO part VALUES ('prt_a02_4', 'msg_a02', 'ses_alpha', 1795000003000, 1795000003900, '{"type":"tool","callID":"toolu_a02_4","tool":"read","state":{"status":"completed","input":{"filePath":"/home/dev/shop/payments/retry_test.go"},"output":"package payments\n...","title":"read","metadata":{},"time":{"start":1795000003000,"end":1795000003900}}}');
INSERT INTO part VALUES ('prt_a02_5', 'msg_a02', 'ses_alpha', 1795000004000, 1795000004900, '{"type":"tool","callID":"toolu_a02_5","tool":"bash","state":{"status":"completed","input":{"command":"go test ./payments -run TestRetry -count=20","description":"Run the retry test 20 times"},"output":"--- FAIL: TestRetry (0.21s)\n--- FAIL: TestRetry (0.21s)\n--- FAIL: TestRetry (0.21s)\n","title":"bash","metadata":{},"time":{"start":1795000004000,"end":1795000004900}}}');
-- a tool call that failed: still a call
INSERT INTO part VALUES ('prt_a02_6', 'msg_a02', 'ses_alpha', 1795000005000, 1795000005900, '{"type":"tool","callID":"toolu_a02_6","tool":"edit","state":{"status":"error","input":{"filePath":"/home/dev/shop/payments/retry_test.go","oldString":"time.Now()","newString":"clock.Now()"},"error":"oldString not found in content","time":{"start":1795000005000,"end":1795000005900}}}');
INSERT INTO part VALUES ('prt_a02_7', 'msg_a02', 'ses_alpha', 1795000008000, 1795000008000, '{"type":"patch","hash":"9f1c2e","files":["/home/dev/shop/payments/retry_test.go"]}');
INSERT INTO part VALUES ('prt_a02_8', 'msg_a02', 'ses_alpha', 1795000008900, 1795000008900, '{"type":"step-finish","reason":"tool-calls","cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_a02_9', 'msg_a02', 'ses_alpha', 1795000008950, 1795000008950, '{"type":"snapshot","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}');
INSERT INTO message VALUES ('msg_a03', 'ses_alpha', 1795000010000, 1795000010000, '{"role":"user","time":{"created":1795000010000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
-- a secret: it must come out redacted
INSERT INTO part VALUES ('prt_a03_1', 'msg_a03', 'ses_alpha', 1795000010000, 1795000010400, '{"type":"text","text":"Use the deploy token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 when you push the fix to the staging branch","time":{"start":1795000010000,"end":1795000010400}}');
-- a subtask part: the subagent's own session holds its prompt
INSERT INTO part VALUES ('prt_a03_2', 'msg_a03', 'ses_alpha', 1795000010001, 1795000010001, '{"type":"subtask","prompt":"Find where the retry backoff is computed","description":"Explore payments retry code","agent":"explore"}');
INSERT INTO message VALUES ('msg_a04', 'ses_alpha', 1795000011000, 1795000020000, '{"role":"assistant","time":{"created":1795000011000,"completed":1795000020000},"parentID":"msg_a03","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_a04_1', 'msg_a04', 'ses_alpha', 1795000011000, 1795000011900, '{"type":"tool","callID":"toolu_a04_1","tool":"task","state":{"status":"completed","input":{"description":"Explore payments retry code","prompt":"Find where the retry backoff is computed","subagent_type":"explore"},"output":"The backoff is computed in payments/retry.go:42.","title":"task","metadata":{},"time":{"start":1795000011000,"end":1795000011900}}}');
INSERT INTO part VALUES ('prt_a04_2', 'msg_a04', 'ses_alpha', 1795000016000, 1795000016400, '{"type":"text","text":"The test relied on wall-clock time; I replaced it with a fake clock and it now passes 200 runs in a row.","time":{"start":1795000016000,"end":1795000016400}}');
INSERT INTO part VALUES ('prt_a04_3', 'msg_a04', 'ses_alpha', 1795000011500, 1795000011500, '{"type":"retry","attempt":1,"error":{"name":"APIError","data":{"message":"Overloaded","isRetryable":true}},"time":{"created":1795000011500}}');
INSERT INTO message VALUES ('msg_a05', 'ses_alpha', 1795000021000, 1795000021000, '{"role":"user","time":{"created":1795000021000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_a05_1', 'msg_a05', 'ses_alpha', 1795000021000, 1795000021400, '{"type":"text","text":"please run the whole suite again","time":{"start":1795000021000,"end":1795000021400}}');
INSERT INTO message VALUES ('msg_a06', 'ses_alpha', 1795000022000, 1795000025000, '{"role":"assistant","time":{"created":1795000022000,"completed":1795000025000},"parentID":"msg_a05","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_a06_1', 'msg_a06', 'ses_alpha', 1795000022000, 1795000022900, '{"type":"tool","callID":"toolu_a06_1","tool":"bash","state":{"status":"completed","input":{"command":"go test ./...","description":"Run all tests"},"output":"ok","title":"bash","metadata":{},"time":{"start":1795000022000,"end":1795000022900}}}');
INSERT INTO part VALUES ('prt_a06_2', 'msg_a06', 'ses_alpha', 1795000024000, 1795000024400, '{"type":"text","text":"All 412 tests pass, the retry test included.","time":{"start":1795000024000,"end":1795000024400}}');
INSERT INTO message VALUES ('msg_a07', 'ses_alpha', 1795000026000, 1795000026000, '{"role":"user","time":{"created":1795000026000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
-- the same text typed again: another message
INSERT INTO part VALUES ('prt_a07_1', 'msg_a07', 'ses_alpha', 1795000026000, 1795000026400, '{"type":"text","text":"please run the whole suite again","time":{"start":1795000026000,"end":1795000026400}}');
INSERT INTO message VALUES ('msg_a08', 'ses_alpha', 1795000027000, 1795000030000, '{"role":"assistant","time":{"created":1795000027000,"completed":1795000030000},"parentID":"msg_a07","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_a08_1', 'msg_a08', 'ses_alpha', 1795000029000, 1795000029400, '{"type":"text","text":"Still green: all 412 tests pass again.","time":{"start":1795000029000,"end":1795000029400}}');
INSERT INTO message VALUES ('msg_a09', 'ses_alpha', 1795000031000, 1795000031000, '{"role":"user","time":{"created":1795000031000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
-- a compaction: OpenCode asks for a summary
INSERT INTO part VALUES ('prt_a09_1', 'msg_a09', 'ses_alpha', 1795000031000, 1795000031000, '{"type":"compaction","auto":true}');
INSERT INTO message VALUES ('msg_a10', 'ses_alpha', 1795000032000, 1795000035000, '{"role":"assistant","time":{"created":1795000032000,"completed":1795000035000},"parentID":"msg_a09","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"compaction","agent":"compaction","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop","summary":true}');
-- the compaction's summary: noise
INSERT INTO part VALUES ('prt_a10_1', 'msg_a10', 'ses_alpha', 1795000032000, 1795000032400, '{"type":"text","text":"## Summary\nWe fixed the flaky retry test in payments by injecting a fake clock.","time":{"start":1795000032000,"end":1795000032400}}');
INSERT INTO message VALUES ('msg_a11', 'ses_alpha', 1795000036000, 1795000036000, '{"role":"user","time":{"created":1795000036000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
-- an ignored part: noise
INSERT INTO part VALUES ('prt_a11_1', 'msg_a11', 'ses_alpha', 1795000036000, 1795000036400, '{"type":"text","text":"The user interrupted this turn; the text below was left out of the model''s context.","time":{"start":1795000036000,"end":1795000036400},"ignored":true}');
INSERT INTO part VALUES ('prt_a11_2', 'msg_a11', 'ses_alpha', 1795000036001, 1795000036401, '{"type":"text","text":"Good, push it to staging and open the pull request.","time":{"start":1795000036001,"end":1795000036401}}');
INSERT INTO message VALUES ('msg_a12', 'ses_alpha', 1795000037000, 1795000038000, '{"role":"assistant","time":{"created":1795000037000,"completed":1795000038000},"parentID":"msg_a11","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_a12_1', 'msg_a12', 'ses_alpha', 1795000037000, 1795000037900, '{"type":"tool","callID":"toolu_a12_1","tool":"webfetch","state":{"status":"completed","input":{"url":"https://github.com/dev/shop/pulls","format":"markdown"},"output":"...","title":"webfetch","metadata":{},"time":{"start":1795000037000,"end":1795000037900}}}');
INSERT INTO part VALUES ('prt_a12_2', 'msg_a12', 'ses_alpha', 1795000037500, 1795000037900, '{"type":"text","text":"Pushed to staging and opened pull request #88.","time":{"start":1795000037500,"end":1795000037900}}');
-- A subagent's session (parent_id): its rows are ses_alpha's, marked with its own id.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_alpha_explore', 'prj_shop', 'ses_alpha', 'alpha-explore', '/home/dev/shop', 'Explore payments retry code (@explore subagent)', '1.1.13', 1795000011100, 1795000015000);
INSERT INTO message VALUES ('msg_b01', 'ses_alpha_explore', 1795000011200, 1795000011200, '{"role":"user","time":{"created":1795000011200},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_b01_1', 'msg_b01', 'ses_alpha_explore', 1795000011200, 1795000011600, '{"type":"text","text":"Find where the retry backoff is computed","time":{"start":1795000011200,"end":1795000011600}}');
INSERT INTO message VALUES ('msg_b02', 'ses_alpha_explore', 1795000011300, 1795000015000, '{"role":"assistant","time":{"created":1795000011300,"completed":1795000015000},"parentID":"msg_b01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_b02_1', 'msg_b02', 'ses_alpha_explore', 1795000011300, 1795000012200, '{"type":"tool","callID":"toolu_b02_1","tool":"grep","state":{"status":"completed","input":{"pattern":"backoff","path":"/home/dev/shop/payments"},"output":"payments/retry.go:42","title":"grep","metadata":{},"time":{"start":1795000011300,"end":1795000012200}}}');
INSERT INTO part VALUES ('prt_b02_2', 'msg_b02', 'ses_alpha_explore', 1795000011400, 1795000012300, '{"type":"tool","callID":"toolu_b02_2","tool":"task","state":{"status":"completed","input":{"description":"Check backoff jitter","prompt":"Check whether the backoff adds jitter","subagent_type":"general"},"output":"Up to 20% jitter.","title":"task","metadata":{},"time":{"start":1795000011400,"end":1795000012300}}}');
INSERT INTO part VALUES ('prt_b02_3', 'msg_b02', 'ses_alpha_explore', 1795000014500, 1795000014900, '{"type":"text","text":"The backoff is computed in payments/retry.go:42 from the attempt number.","time":{"start":1795000014500,"end":1795000014900}}');
-- A subagent's subagent, with OpenCode's placeholder title: its rows are the root's, ses_alpha's.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_alpha_jitter', 'prj_shop', 'ses_alpha_explore', 'alpha-jitter', '/home/dev/shop', 'Child session - 2026-11-19T07:33:31.500Z', '1.1.13', 1795000011500, 1795000013000);
INSERT INTO message VALUES ('msg_c01', 'ses_alpha_jitter', 1795000011600, 1795000011600, '{"role":"user","time":{"created":1795000011600},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_c01_1', 'msg_c01', 'ses_alpha_jitter', 1795000011600, 1795000012000, '{"type":"text","text":"Check whether the backoff adds jitter","time":{"start":1795000011600,"end":1795000012000}}');
INSERT INTO message VALUES ('msg_c02', 'ses_alpha_jitter', 1795000011700, 1795000013000, '{"role":"assistant","time":{"created":1795000011700,"completed":1795000013000},"parentID":"msg_c01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"general","agent":"general","path":{"cwd":"/home/dev/shop","root":"/home/dev/shop"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_c02_1', 'msg_c02', 'ses_alpha_jitter', 1795000012500, 1795000012900, '{"type":"text","text":"It adds up to 20% random jitter, which is why timing-based asserts flake.","time":{"start":1795000012500,"end":1795000012900}}');
-- A turn abandoned (no time.completed, a pending tool) and followed by more: read as it is.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_gamma', 'prj_api', NULL, 'gamma', '/home/dev/api', 'Config loader rewrite', '1.1.13', 1795000050000, 1795000061000);
INSERT INTO message VALUES ('msg_g01', 'ses_gamma', 1795000050100, 1795000050100, '{"role":"user","time":{"created":1795000050100},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_g01_1', 'msg_g01', 'ses_gamma', 1795000050100, 1795000050500, '{"type":"text","text":"Rewrite the config loader to read TOML instead of YAML","time":{"start":1795000050100,"end":1795000050500}}');
INSERT INTO message VALUES ('msg_g02', 'ses_gamma', 1795000050200, 1795000050200, '{"role":"assistant","time":{"created":1795000050200},"parentID":"msg_g01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/api","root":"/home/dev/api"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_g02_1', 'msg_g02', 'ses_gamma', 1795000050300, 1795000050700, '{"type":"text","text":"Half an answer that was cut off when the process crashed","time":{"start":1795000050300,"end":1795000050700}}');
-- a call that never ran: no row
INSERT INTO part VALUES ('prt_g02_2', 'msg_g02', 'ses_gamma', 1795000050900, 1795000051800, '{"type":"tool","callID":"toolu_g02_2","tool":"write","state":{"status":"pending","input":{"filePath":"/home/dev/api/config.go","content":"package config\n"},"raw":""}}');
INSERT INTO message VALUES ('msg_g03', 'ses_gamma', 1795000060000, 1795000060000, '{"role":"user","time":{"created":1795000060000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_g03_1', 'msg_g03', 'ses_gamma', 1795000060000, 1795000060400, '{"type":"text","text":"Let''s start over with the config loader, smaller steps this time","time":{"start":1795000060000,"end":1795000060400}}');
INSERT INTO message VALUES ('msg_g04', 'ses_gamma', 1795000060100, 1795000061000, '{"role":"assistant","time":{"created":1795000060100,"completed":1795000061000},"parentID":"msg_g03","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/api","root":"/home/dev/api"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_g04_1', 'msg_g04', 'ses_gamma', 1795000060500, 1795000060900, '{"type":"text","text":"Step one: a TOML decoder behind the existing Loader interface.","time":{"start":1795000060500,"end":1795000060900}}');
-- Hostile rows: each bad one costs itself only.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_delta', 'global', NULL, 'delta', '/home/dev/odd path/with spaces', 'Hostile rows ✓ with unicode 名前', '1.1.13', 1795000070000, 1795000079000);
INSERT INTO message VALUES ('msg_h01', 'ses_delta', 1795000070100, 1795000070100, '{"role":"user","time":{"created":1795000070100},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
-- data cut short: not JSON
INSERT INTO part VALUES ('prt_h01_1', 'msg_h01', 'ses_delta', 1795000070101, 1795000070101, '{"type":"text","text":"cut sh');
-- data that is JSON but not an object
INSERT INTO part VALUES ('prt_h01_2', 'msg_h01', 'ses_delta', 1795000070102, 1795000070102, '[1,2,3]');
-- an unknown part type: skipped
INSERT INTO part VALUES ('prt_h01_3', 'msg_h01', 'ses_delta', 1795000070103, 1795000070103, '{"type":"hologram","text":"a part type of a version to come"}');
-- members of unexpected types read as empty
INSERT INTO part VALUES ('prt_h01_4', 'msg_h01', 'ses_delta', 1795000070104, 1795000070104, '{"type":"text","text":"odd members of odd types still give this row","time":{"start":"yesterday"},"synthetic":"no","metadata":[1,{"x":null}]}');
-- text with bytes that are not UTF-8
INSERT INTO part VALUES ('prt_h01_5', 'msg_h01', 'ses_delta', 1795000070105, 1795000070105, CAST(X'7B2274797065223A2274657874222C2274657874223A226279746573207468617420617265206E6F74205554462D383A20FFFEC320656E64206F66207468656D227D' AS TEXT));
-- a pasted log of 300,000 characters: kept cut, with a marker
INSERT INTO part VALUES ('prt_h01_6', 'msg_h01', 'ses_delta', 1795000070106, 1795000070106, json_object('type', 'text', 'text', 'Pasted log: ' || replace(hex(zeroblob(50000)), '00', 'lorem ')));
-- a text that is a number: empty
INSERT INTO part VALUES ('prt_h01_7', 'msg_h01', 'ses_delta', 1795000070107, 1795000070107, '{"type":"text","text":42}');
-- empty data
INSERT INTO part VALUES ('prt_h01_8', 'msg_h01', 'ses_delta', 1795000070108, 1795000070108, '');
-- TSV specials; a time out of range
INSERT INTO part VALUES ('prt_h01_9', 'msg_h01', 'ses_delta', 1795000070109, 1795000070109, '{"type":"text","text":"A prompt\twith a tab,\na new line and a backslash \\ in it.","time":{"start":1e+300}}');
-- message data that is not JSON: its parts are lost with it
INSERT INTO message VALUES ('msg_h02', 'ses_delta', 1795000071000, 1795000071000, 'garbage');
INSERT INTO part VALUES ('prt_h02_1', 'msg_h02', 'ses_delta', 1795000071000, 1795000071400, '{"type":"text","text":"this text is lost with its message","time":{"start":1795000071000,"end":1795000071400}}');
-- a role OpenCode does not write
INSERT INTO message VALUES ('msg_h03', 'ses_delta', 1795000072000, 1795000072000, '{"role":"system","time":{"created":1795000072000}}');
INSERT INTO part VALUES ('prt_h03_1', 'msg_h03', 'ses_delta', 1795000072000, 1795000072400, '{"type":"text","text":"You are a helpful assistant of another kind.","time":{"start":1795000072000,"end":1795000072400}}');
INSERT INTO message VALUES ('msg_h04', 'ses_delta', 1795000073000, 1795000079000, '{"role":"assistant","time":{"created":1795000073000,"completed":1795000079000},"parentID":"msg_h01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/odd path/with spaces","root":"/home/dev/odd path/with spaces"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
-- a tool input that is not an object
INSERT INTO part VALUES ('prt_h04_1', 'msg_h04', 'ses_delta', 1795000073000, 1795000073900, '{"type":"tool","callID":"toolu_h04_1","tool":"bash","state":{"status":"completed","input":"ls -la","output":"...","title":"bash","metadata":{},"time":{"start":1795000073000,"end":1795000073900}}}');
-- a tool without a name: no row
INSERT INTO part VALUES ('prt_h04_2', 'msg_h04', 'ses_delta', 1795000073100, 1795000074000, '{"type":"tool","callID":"toolu_h04_2","tool":"","state":{"status":"completed","input":{"command":"true"},"output":"","title":"","metadata":{},"time":{"start":1795000073100,"end":1795000074000}}}');
-- an MCP tool with no argument the row names: its name alone
INSERT INTO part VALUES ('prt_h04_3', 'msg_h04', 'ses_delta', 1795000073200, 1795000074100, '{"type":"tool","callID":"toolu_h04_3","tool":"github_create_issue","state":{"status":"completed","input":{"title":"Flaky test","body":"see CI"},"output":"","title":"github_create_issue","metadata":{},"time":{"start":1795000073200,"end":1795000074100}}}');
-- a part without an id
INSERT INTO part VALUES ('', 'msg_h04', 'ses_delta', 1795000073300, 1795000073300, '{"type":"text","text":"A part without an id gets one derived from its content."}');
-- a part whose message is gone: no row
INSERT INTO part VALUES ('prt_orphan', 'msg_gone', 'ses_delta', 1795000074000, 1795000074000, '{"type":"text","text":"a part whose message is gone"}');
-- messages of a session missing from the session table: read, its project from their cwd
INSERT INTO message VALUES ('msg_o01', 'ses_lost', 1795000080000, 1795000080000, '{"role":"user","time":{"created":1795000080000}}');
INSERT INTO part VALUES ('prt_o01_1', 'msg_o01', 'ses_lost', 1795000080000, 1795000080400, '{"type":"text","text":"Question from a session whose row is gone","time":{"start":1795000080000,"end":1795000080400}}');
INSERT INTO message VALUES ('msg_o02', 'ses_lost', 1795000080100, 1795000081000, '{"role":"assistant","time":{"created":1795000080100,"completed":1795000081000},"parentID":"msg_o01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/lost","root":"/home/dev/lost"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO part VALUES ('prt_o02_1', 'msg_o02', 'ses_lost', 1795000080500, 1795000080900, '{"type":"text","text":"Answer from a session whose row is gone.","time":{"start":1795000080500,"end":1795000080900}}');
-- OpenCode's placeholder title (no title row), and a turn still being written: left for a later read.
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_beta', 'prj_blog', NULL, 'beta', '/home/dev/blog', 'New session - 2026-11-19T07:35:00.000Z', '1.1.13', 1795000100000, 1795000100300);
INSERT INTO message VALUES ('msg_e01', 'ses_beta', 1795000100100, 1795000100100, '{"role":"user","time":{"created":1795000100100},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_e01_1', 'msg_e01', 'ses_beta', 1795000100100, 1795000100500, '{"type":"text","text":"Write a draft post about SQLite WAL mode for the blog","time":{"start":1795000100100,"end":1795000100500}}');
INSERT INTO message VALUES ('msg_e02', 'ses_beta', 1795000100200, 1795000100200, '{"role":"assistant","time":{"created":1795000100200},"parentID":"msg_e01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/dev/blog","root":"/home/dev/blog"},"cost":0.0123,"tokens":{"input":1200,"output":340,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_e02_1', 'msg_e02', 'ses_beta', 1795000100250, 1795000100650, '{"type":"text","text":"WAL mode lets readers keep reading while","time":{"start":1795000100250,"end":1795000100650}}');
-- a call still running
INSERT INTO part VALUES ('prt_e02_2', 'msg_e02', 'ses_beta', 1795000100300, 1795000101200, '{"type":"tool","callID":"toolu_e02_2","tool":"bash","state":{"status":"running","input":{"command":"ls posts"},"title":"bash","time":{"start":1795000100300}}}');
