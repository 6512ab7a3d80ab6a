// Package schema is clickgen's wire contract as data: the 47 columns of a hit on topic `hits`,
// the 11 keys of an order row on topic `orders` and the keys of an order line, together with the
// canonical encoders that turn values into the exact bytes the stand's strict intake accepts,
// and renderers for the export description (`clickgen schema`).
//
// Every other package takes column and key names from the tables here ([HitColumns],
// [OrderKeys], [OrderItemKeys]); nothing else spells them by hand.
//
// The encoders are append-style and allocation-free: they write compact JSON with keys in
// contract order, raw UTF-8 strings (only '"', '\\' and control characters are escaped; no HTML
// escaping), floats as the shortest round-trip decimal with a trailing ".0" for whole numbers,
// and money as strings with two decimals made from integer kopecks. Their output is a pure
// function of their input, so the same values give the same bytes on every machine.
//
// This package imports nothing else from clickgen.
package schema
