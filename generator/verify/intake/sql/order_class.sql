{{- /*
The stand's strict intake of topic orders (stand.md, "Strict intake of orders"), as one total
expression over the column raw String: never NULL, never throws. It yields '' for a row that
goes to ods.order and the first failing error class otherwise. Key names, patterns and the
sorted key list are filled in from package schema; ClassifyOrder is its Go twin.
*/ -}}
multiIf(
    JSONType(raw) != 'Object', {{q .NotAnObject}},
    arraySort(JSONExtractKeys(raw)) != {{array .SortedKeys}}, {{q .KeysetMismatch}},
    JSONType(raw, {{q .OrderID}}) != 'String'
        OR JSONType(raw, {{q .Status}}) != 'String'
        OR NOT (JSONType(raw, {{q .UserID}}) = 'UInt64'
            OR (JSONType(raw, {{q .UserID}}) = 'Int64' AND JSONExtractInt(raw, {{q .UserID}}) >= 0))
        OR JSONType(raw, {{q .Items}}) != 'Array'
{{- range .Times}}
        OR NOT (JSONType(raw, {{q .}}) = 'String'
            AND match(JSONExtractString(raw, {{q .}}), {{q $.PatternMillis}})
            AND isNotNull(parseDateTime64InJodaSyntaxOrNull(JSONExtractString(raw, {{q .}}), {{q $.JodaMillis}}, 'UTC')))
{{- end}}
{{- range .Money}}
        OR NOT (JSONType(raw, {{q .}}) = 'String'
            AND match(JSONExtractString(raw, {{q .}}), {{q $.PatternMoney}})
            AND isNotNull(toDecimal64OrNull(JSONExtractString(raw, {{q .}}), 2)))
{{- end}}
        OR NOT (JSONType(raw, {{q .SnapshotDate}}) = 'String'
            AND match(JSONExtractString(raw, {{q .SnapshotDate}}), {{q .PatternDate}})
            AND isNotNull(parseDateTime64InJodaSyntaxOrNull(JSONExtractString(raw, {{q .SnapshotDate}}), {{q .JodaDate}}, 'UTC'))), {{q .FieldInvalid}},
    '')
