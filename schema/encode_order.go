package schema

import (
	"fmt"
	"strconv"
)

// orderKey[i] is the key of order key i with its separator, built from OrderKeys.
var orderKey = func() (keys [NumOrderKeys]string) {
	for i, k := range OrderKeys {
		sep := ","
		if i == 0 {
			sep = "{"
		}
		keys[i] = sep + strconv.Quote(k.Name) + ":"
	}
	return keys
}()

var itemKey = func() (keys [len(OrderItemKeys)]string) {
	for i, k := range OrderItemKeys {
		sep := ","
		if i == 0 {
			sep = "{"
		}
		keys[i] = sep + strconv.Quote(k.Name) + ":"
	}
	return keys
}()

// AppendOrder appends the canonical JSON of o: one compact object with the 11 keys in contract
// order, money as strings with two decimals, times with exactly three millisecond digits and
// Z, items as a real JSON array. It returns an error, and dst unchanged, when a money value is
// negative or a time is outside 0 … MaxMillis: such a row would be a generator bug, and the
// strict intake would reject it.
func AppendOrder(dst []byte, o *Order) ([]byte, error) {
	start := len(dst)
	fail := func(key string, v any) ([]byte, error) {
		return dst[:start], fmt.Errorf("order %s: %s %v is not encodable", o.OrderID, key, v)
	}
	if o.CreatedAt < 0 || o.CreatedAt > MaxMillis {
		return fail(OrderKeys[3].Name, int64(o.CreatedAt))
	}
	if o.UpdatedAt < 0 || o.UpdatedAt > MaxMillis {
		return fail(OrderKeys[4].Name, int64(o.UpdatedAt))
	}
	dst = append(dst, orderKey[0]...)
	dst = AppendString(dst, o.OrderID)
	dst = append(dst, orderKey[1]...)
	dst = strconv.AppendUint(dst, o.UserID, 10)
	dst = append(dst, orderKey[2]...)
	dst = AppendString(dst, o.Status)
	dst = append(dst, orderKey[3]...)
	dst = append(dst, '"')
	dst = o.CreatedAt.Append(dst)
	dst = append(dst, '"')
	dst = append(dst, orderKey[4]...)
	dst = append(dst, '"')
	dst = o.UpdatedAt.Append(dst)
	dst = append(dst, '"')
	var ok bool
	for i, v := range [4]int64{o.ItemsTotal, o.Discount, o.Delivery, o.Total} {
		dst = append(dst, orderKey[5+i]...)
		if dst, ok = AppendMoney(dst, v); !ok {
			return fail(OrderKeys[5+i].Name, v)
		}
	}
	dst = append(dst, orderKey[9]...)
	dst = append(dst, '[')
	for i := range o.Items {
		it := &o.Items[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, itemKey[0]...)
		dst = AppendString(dst, it.SKU)
		dst = append(dst, itemKey[1]...)
		dst = strconv.AppendUint(dst, uint64(it.Qty), 10)
		dst = append(dst, itemKey[2]...)
		if dst, ok = AppendMoney(dst, it.Price); !ok {
			return fail("items[].price", it.Price)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = append(dst, orderKey[10]...)
	dst = append(dst, '"')
	dst = o.SnapshotDate.Append(dst)
	return append(dst, '"', '}'), nil
}
