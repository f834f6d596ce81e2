-- An SQLite store written by adk_nb schema version 1 (before app/user state revisions): one
-- session s1 of user ada in app shop, one event, app:theme, user:visits = 4.
BEGIN TRANSACTION;
CREATE TABLE adk_nb_schema (
	"key" VARCHAR(64) NOT NULL, 
	value TEXT NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO "adk_nb_schema" VALUES('schema_version','1');
CREATE TABLE app_states (
	app_name VARCHAR(128) NOT NULL, 
	state TEXT NOT NULL, 
	update_time DOUBLE NOT NULL, 
	PRIMARY KEY (app_name)
);
INSERT INTO "app_states" VALUES('shop','{"theme":"dark"}',1.79607514519746184348e+09);
CREATE TABLE events (
	seq INTEGER NOT NULL, 
	app_name VARCHAR(128) NOT NULL, 
	user_id VARCHAR(128) NOT NULL, 
	session_id VARCHAR(128) NOT NULL, 
	id VARCHAR(128) NOT NULL, 
	timestamp DOUBLE NOT NULL, 
	data TEXT NOT NULL, 
	PRIMARY KEY (seq), 
	CONSTRAINT uq_events_session_event UNIQUE (app_name, user_id, session_id, id)
);
INSERT INTO "events" VALUES(1,'shop','ada','s1','e1',1000.0,'{"invocationId":"i","author":"agent","actions":{"stateDelta":{"user:visits":4},"artifactDelta":{},"requestedAuthConfigs":{},"requestedToolConfirmations":{}},"id":"e1","timestamp":1000.0}');
CREATE TABLE sessions (
	app_name VARCHAR(128) NOT NULL, 
	user_id VARCHAR(128) NOT NULL, 
	id VARCHAR(128) NOT NULL, 
	state TEXT NOT NULL, 
	create_time DOUBLE NOT NULL, 
	update_time DOUBLE NOT NULL, 
	PRIMARY KEY (app_name, user_id, id)
);
INSERT INTO "sessions" VALUES('shop','ada','s1','{"k":1}',1.79607514519746184348e+09,1.79607514519746279714e+09);
CREATE TABLE user_states (
	app_name VARCHAR(128) NOT NULL, 
	user_id VARCHAR(128) NOT NULL, 
	state TEXT NOT NULL, 
	update_time DOUBLE NOT NULL, 
	PRIMARY KEY (app_name, user_id)
);
INSERT INTO "user_states" VALUES('shop','ada','{"visits":4}',1.79607514519746279714e+09);
CREATE INDEX ix_events_session_seq ON events (app_name, user_id, session_id, seq);
COMMIT;
