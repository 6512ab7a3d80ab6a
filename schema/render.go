package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Entities that `clickgen schema` can describe.
const (
	EntityHits   = "hits"
	EntityOrders = "orders"
)

// Formats of the export description.
const (
	FormatMarkdown   = "markdown"
	FormatKeys       = "keys"
	FormatJSONSchema = "json-schema"
)

// Render writes the description of entity in format to w.
func Render(w io.Writer, entity, format string) error {
	var b []byte
	switch {
	case entity == EntityHits && format == FormatKeys:
		b = []byte(strings.Join(HitKeys(), "\n") + "\n")
	case entity == EntityOrders && format == FormatKeys:
		b = []byte(strings.Join(OrderKeyNames(), "\n") + "\n")
	case entity == EntityHits && format == FormatMarkdown:
		b = hitsMarkdown()
	case entity == EntityOrders && format == FormatMarkdown:
		b = ordersMarkdown()
	case entity == EntityHits && format == FormatJSONSchema:
		b = HitsJSONSchema()
	case entity == EntityOrders && format == FormatJSONSchema:
		b = OrdersJSONSchema()
	default:
		return fmt.Errorf("no description of entity %q in format %q", entity, format)
	}
	_, err := w.Write(b)
	return err
}

func emptyOn(s EventSet) string {
	var names []string
	for i, t := range EventTypes {
		if s&(1<<i) != 0 {
			names = append(names, "`"+t+"`")
		}
	}
	if len(names) == 0 {
		return "—"
	}
	return strings.Join(names, ", ")
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func hitsMarkdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Topic `hits`: the %d event columns\n\n", NumHitColumns)
	b.WriteString("Every message is one compact JSON object with all keys below, always, in this order.\n")
	b.WriteString("\"Empty on\" lists the event types on which a column is always empty (`[]`, `\"\"` or `0`).\n")
	for _, g := range HitGroups {
		fmt.Fprintf(&b, "\n## %s\n\n", g.Title)
		b.WriteString("| # | Name | ClickHouse type | DDS name | Empty on | Meaning |\n")
		b.WriteString("|---|---|---|---|---|---|\n")
		for pos := g.From; pos <= g.To; pos++ {
			c := HitColumns[pos-1]
			fmt.Fprintf(&b, "| %d | `%s` | `%s` | `%s` | %s | %s |\n",
				pos, c.Name, c.Type, c.Snake, emptyOn(c.Empty), mdCell(c.Comment))
		}
	}
	return b.Bytes()
}

func keysTable(b *bytes.Buffer, keys []Key) {
	b.WriteString("| # | Key | JSON type | ClickHouse type | Pattern | Meaning |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for i, k := range keys {
		pattern := "—"
		if k.Pattern != "" {
			pattern = "`" + mdCell(k.Pattern) + "`"
		}
		fmt.Fprintf(b, "| %d | `%s` | %s | `%s` | %s | %s |\n", i+1, k.Name, k.JSON, k.Type, pattern, mdCell(k.Comment))
	}
}

func ordersMarkdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Topic `orders`: the %d order keys\n\n", NumOrderKeys)
	b.WriteString("One message per order row of a daily snapshot: a compact JSON object with all keys below, in this order.\n")
	b.WriteString("Money is a string with exactly two decimals; times are UTC with three millisecond digits and `Z`.\n\n")
	keysTable(&b, OrderKeys[:])
	b.WriteString("\n## Elements of `items`\n\n")
	keysTable(&b, OrderItemKeys[:])
	return b.Bytes()
}

// obj is a JSON object whose keys keep their insertion order when marshalled.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(AppendString(nil, e.k))
		b.WriteByte(':')
		v, err := marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// number is a JSON number written verbatim (UInt64 bounds exceed float64 precision).
type number string

func (n number) MarshalJSON() ([]byte, error) { return []byte(n), nil }

// scalarSchema is the JSON Schema of one value of a ClickHouse scalar type.
func scalarSchema(chType string) obj {
	switch chType {
	case "UInt8":
		return obj{{"type", "integer"}, {"minimum", 0}, {"maximum", 255}}
	case "UInt16":
		return obj{{"type", "integer"}, {"minimum", 0}, {"maximum", 65535}}
	case "UInt32":
		return obj{{"type", "integer"}, {"minimum", 0}, {"maximum", number("4294967295")}}
	case "UInt64":
		return obj{{"type", "integer"}, {"minimum", 0}, {"maximum", number("18446744073709551615")}}
	case "Int8":
		return obj{{"type", "integer"}, {"minimum", -128}, {"maximum", 127}}
	case "Int16":
		return obj{{"type", "integer"}, {"minimum", -32768}, {"maximum", 32767}}
	case "Int64":
		return obj{{"type", "integer"}, {"minimum", number("-9223372036854775808")}, {"maximum", number("9223372036854775807")}}
	case "Float64":
		return obj{{"type", "number"}}
	case "Date":
		return obj{{"type", "string"}, {"pattern", PatternDate}, {"format", "date"}}
	case "DateTime":
		return obj{{"type", "string"}, {"pattern", PatternDateTimeZ}, {"format", "date-time"}}
	}
	return obj{{"type", "string"}}
}

func indent(o obj) []byte {
	raw, err := o.MarshalJSON()
	if err != nil {
		panic(err) // the schemas are built from constant tables; a failure is a programming error
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		panic(err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// HitsJSONSchema returns a JSON Schema (draft 2020-12) that accepts exactly the hits the
// contract allows in form: all 47 keys, no others, each of its column's type.
func HitsJSONSchema() []byte {
	props := make(obj, 0, NumHitColumns)
	for _, c := range HitColumns {
		var s obj
		switch {
		case c.Name == HitColumns[7].Name: // EventType
			s = obj{{"type", "string"}, {"enum", EventTypes[:]}}
		case c.Array():
			s = obj{{"type", "array"}, {"items", scalarSchema(c.Elem())}}
		default:
			s = scalarSchema(c.Type)
		}
		s = append(s, kv{"description", c.Comment})
		props = append(props, kv{c.Name, s})
	}
	return indent(obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", "https://shop.example.com/schemas/clickgen/hits.json"},
		{"title", "clickgen hit (topic hits)"},
		{"type", "object"},
		{"required", HitKeys()},
		{"additionalProperties", false},
		{"properties", props},
	})
}

func keySchema(k Key) obj {
	var s obj
	switch k.JSON {
	case JSONInteger:
		s = scalarSchema(k.Type)
	case JSONString:
		s = obj{{"type", "string"}}
		if k.Pattern != "" {
			s = append(s, kv{"pattern", k.Pattern})
		}
	default:
		s = obj{{"type", k.JSON}}
	}
	return append(s, kv{"description", k.Comment})
}

// OrdersJSONSchema returns a JSON Schema (draft 2020-12) for one order row: the 11 keys, no
// others, money and time patterns, and items as a non-empty array of {sku, qty, price}.
func OrdersJSONSchema() []byte {
	itemProps := make(obj, 0, len(OrderItemKeys))
	var itemNames []string
	for _, k := range OrderItemKeys {
		s := keySchema(k)
		if k.JSON == JSONInteger {
			s = append(obj{{"type", "integer"}, {"minimum", 1}, {"maximum", number("4294967295")}}, kv{"description", k.Comment})
		}
		itemProps = append(itemProps, kv{k.Name, s})
		itemNames = append(itemNames, k.Name)
	}
	props := make(obj, 0, NumOrderKeys)
	for _, k := range OrderKeys {
		var s obj
		switch {
		case k.Name == OrderKeys[2].Name: // status
			s = obj{{"type", "string"}, {"enum", []string{StatusCreated, StatusPaid, StatusCancelled}}, {"description", k.Comment}}
		case k.JSON == JSONArray:
			s = obj{{"type", "array"}, {"minItems", 1}, {"items", obj{
				{"type", "object"},
				{"required", itemNames},
				{"additionalProperties", false},
				{"properties", itemProps},
			}}, {"description", k.Comment}}
		default:
			s = keySchema(k)
		}
		props = append(props, kv{k.Name, s})
	}
	return indent(obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", "https://shop.example.com/schemas/clickgen/orders.json"},
		{"title", "clickgen order row (topic orders)"},
		{"type", "object"},
		{"required", OrderKeyNames()},
		{"additionalProperties", false},
		{"properties", props},
	})
}
