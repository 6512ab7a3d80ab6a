-- The stand's layers on one ClickHouse 18.16 node (.ci/clickhouse/README.md says what differs
-- from the stand's sql/ddl and why). Applied in file-name order by `clickhouse apply` or by
-- realclickhouse.Server.ApplyDDL; every statement ends with a semicolon at the end of a line.
CREATE DATABASE IF NOT EXISTS stg;
CREATE DATABASE IF NOT EXISTS ods;
