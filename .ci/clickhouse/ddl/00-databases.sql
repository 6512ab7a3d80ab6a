-- The stand's layers on ClickHouse 18.16, one node or a cluster (.ci/clickhouse/README.md says
-- what differs from the stand's sql/ddl and why). Applied in file-name order by `clickhouse
-- apply` or realclickhouse.Server.ApplyDDL (one node), and by `clickhouse cluster-apply` or
-- realclickhouse.Cluster.ApplyDDL (a cluster, from its first server); every statement ends with
-- a semicolon at the end of a line. Two placeholders differ between the forms: on_cluster, in
-- double braces, is nothing on one node and ON CLUSTER clickstream_cluster on a cluster; the
-- engine placeholder, in double braces, engine:E:DB/TABLE or engine:E:DB/TABLE:ARG, is E or
-- E(ARG) on one node, and ReplicatedE('/clickhouse/tables/{shard}/DB/TABLE', '{replica}') or
-- ReplicatedE('/clickhouse/tables/{shard}/DB/TABLE', '{replica}', ARG) on a cluster, the
-- stand's keeper path.
CREATE DATABASE IF NOT EXISTS stg {{on_cluster}};
CREATE DATABASE IF NOT EXISTS ods {{on_cluster}};
