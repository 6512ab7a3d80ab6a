{{- /*
The stand's strict intake of topic hits (stand.md, "Strict intake of hits"), as one total
expression over the column raw String: never NULL, never throws. It yields '' for a row that
goes to ods.event and the first failing error class otherwise. Key names and the sorted key
list are filled in from package schema; ClassifyHit is its Go twin.
*/ -}}
multiIf(
    JSONType(raw) != 'Object', {{q .NotAnObject}},
    arraySort(JSONExtractKeys(raw)) != {{array .SortedKeys}}, {{q .KeysetMismatch}},
    isNull(JSONExtract(raw, {{q .WatchID}}, 'Nullable(UInt64)'))
        OR isNull(JSONExtract(raw, {{q .VisitID}}, 'Nullable(UInt64)'))
        OR isNull(JSONExtract(raw, {{q .ClientID}}, 'Nullable(UInt64)'))
        OR isNull(JSONExtract(raw, {{q .EventDate}}, 'Nullable(Date)'))
        OR isNull(parseDateTimeOrNull(JSONExtractString(raw, {{q .UTCEventTime}}), {{q .TimeFormat}}, 'UTC')), {{q .KeyFieldUnparsed}},
    '')
