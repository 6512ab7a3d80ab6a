package world

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultCatalogCSV is the shop's own catalog: 6 categories × 30 products with Russian names,
// brands, integer kopeck prices and a demand level, in the shape of the stand's dictionary file.
//
//go:embed data/catalog.csv
var DefaultCatalogCSV []byte

// Demand levels (world.md §4.2): how likely a product on an opened card is taken into a basket.
const (
	DemandMagnet   = 0 // магнит
	DemandOrdinary = 1 // обычный
	DemandSlow     = 2 // залёживается
)

// DemandNames are the spellings of the demand levels in the catalog file, by level.
var DemandNames = [3]string{"магнит", "обычный", "залёживается"}

// DefaultDemand is the level of every product of a catalog file without a demand column (the
// stand's older five-column file): ordinary.
const DefaultDemand = DemandOrdinary

var catalogHeader = []string{"sku", "name", "category", "brand", "price", "demand"}

// Product is one catalog row.
type Product struct {
	SKU      string
	Name     string
	Category int // index into categories
	Brand    string
	Price    int64 // kopecks
	Demand   int   // DemandMagnet, DemandOrdinary or DemandSlow
}

// Catalog is the shop's assortment. Product index = 0-based row number in the file; a visit's
// card is drawn among its category's rows in file order.
type Catalog struct {
	Products   []Product
	ByCategory [len(categories)][]int // product indices per category, in file order
	SHA256     string                 // hex SHA-256 of the file's bytes
}

// DefaultCatalog returns the embedded catalog.
func DefaultCatalog() *Catalog {
	c, err := ParseCatalog(DefaultCatalogCSV)
	if err != nil {
		panic("generator: embedded catalog: " + err.Error())
	}
	return c
}

// CatalogError is a malformed catalog file: it names the line and, when it concerns one
// field, the CSV column (1-based field number) and its name.
type CatalogError struct {
	Line   int
	Column int    // 1-based field number; 0 when the error concerns the whole line
	Field  string // the column's name from the header
	Err    error
}

func (e *CatalogError) Error() string {
	if e.Column == 0 {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d, column %d (%s): %v", e.Line, e.Column, e.Field, e.Err)
}

func (e *CatalogError) Unwrap() error { return e.Err }

// MaxCatalogField is the longest catalog field ParseCatalog accepts, in bytes. A product name
// appears in several fields of every message about the product (a 10 MB name made 30 MB
// messages, beyond any broker's message size); real names are a few hundred bytes.
const MaxCatalogField = 1024

// MaxCatalogRows bounds the products of a catalog. A catalog costs memory per row (the
// product, its page's URL and title columns; [Footprint] counts it) and the run's memory check
// counts it, but a file of millions of rows is no shop's assortment: a 1 000 000-row catalog
// (60 MB) is accepted, more is refused before the world is built.
const MaxCatalogRows = 1_000_000

// MaxCatalogBytes bounds a catalog file's size (what is read before a row is parsed): 1 000 000
// rows of the stand's shape take 60 MB.
const MaxCatalogBytes = 256 << 20

// MaxPrice is the highest catalog price, in kopecks (2 144 571 251 114.75 ₽). It is derived from
// the largest basket the world forms, so that every amount computed from prices stays an exact
// integer below 2^53: a purchase's revenue (a Float64 of kopecks/100 in hits), an order's
// items_total and total (Decimal(18, 2)). A visit browses at most [MaxVisitPages] pages, so its
// basket holds at most that many distinct products, each at most [MaxQuantity] times, and an
// order adds at most [MaxDelivery] kopecks of delivery:
//
//	MaxPrice = (2^53 − 1 − MaxDelivery) / (MaxVisitPages × MaxQuantity)
//
// A price of 9223372036854775807 used to be accepted and made hits with a negative
// productPrice and snapshots that could not be encoded.
const MaxPrice = (1<<53 - 1 - MaxDelivery) / (MaxVisitPages * MaxQuantity)

// The world's largest basket and delivery, which bound [MaxPrice] (TestMaxPriceBasket checks
// them against the tables the world draws from).
const (
	MaxVisitPages = 14     // pages a visit browses at most: visitPagesTable's choices
	MaxQuantity   = 3      // units of one product in a basket at most: quantityTable's choices
	MaxDelivery   = 59_000 // kopecks: the dearest of deliveryKopecks
)

// SKUs are path segments of product URLs (/product/SKU) and are written there as they are, so
// a SKU is limited to the characters a URL path segment carries unescaped and unambiguously:
// RFC 3986's unreserved set, ASCII letters, digits and -._~ ("." and ".." alone are dot
// segments, which a URL parser removes). `"\%<>'`, spaces, non-ASCII and the URL's own
// delimiters made product URLs that are not valid URLs.
const skuChars = "A–Z a–z 0–9 - . _ ~"

// validSKU reports whether s is a non-empty SKU of the allowed characters ([skuChars]).
func validSKU(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// ParseCatalog reads a catalog in the stand's format: a header `sku,name,category,brand,price`
// optionally followed by `,demand`, then one product per line; price in integer kopecks;
// category one of the six category names; demand магнит, обычный or залёживается (without the
// column every product is DefaultDemand). Every category needs at least one product and SKUs
// are unique, of the characters a URL path segment carries unescaped (A–Z a–z 0–9 - . _ ~);
// prices are 1 … [MaxPrice], and there are at most [MaxCatalogRows] products in at most
// [MaxCatalogBytes].
func ParseCatalog(data []byte) (*Catalog, error) {
	if len(data) > MaxCatalogBytes {
		return nil, &CatalogError{Line: 1, Err: fmt.Errorf("%d bytes, want at most %d (256 MiB)", len(data), MaxCatalogBytes)}
	}
	sum := sha256.Sum256(data)
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &CatalogError{Line: 1, Err: errors.New("empty file: want a header sku,name,category,brand,price[,demand]")}
		}
		return nil, csvError(err)
	}
	cols := len(header)
	if cols != 5 && cols != 6 {
		return nil, &CatalogError{Line: 1, Err: fmt.Errorf("header has %d columns, want sku,name,category,brand,price[,demand]", cols)}
	}
	for i, h := range header {
		if strings.TrimSpace(h) != catalogHeader[i] {
			return nil, &CatalogError{Line: 1, Column: i + 1, Field: catalogHeader[i], Err: fmt.Errorf("header says %q, want %q", h, catalogHeader[i])}
		}
	}
	r.FieldsPerRecord = cols
	c := &Catalog{SHA256: hex.EncodeToString(sum[:])}
	seen := map[string]int{}
	lastLine := 1
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := r.FieldPos(0)
		lastLine = line
		bad := func(field int, format string, args ...any) error {
			l, _ := r.FieldPos(field)
			return &CatalogError{Line: l, Column: field + 1, Field: catalogHeader[field], Err: fmt.Errorf(format, args...)}
		}
		p := Product{SKU: rec[0], Name: rec[1], Brand: rec[3], Demand: DefaultDemand, Category: -1}
		for i, f := range rec {
			if !utf8.ValidString(f) {
				return nil, bad(i, "not valid UTF-8")
			}
			if len(f) > MaxCatalogField {
				return nil, bad(i, "%d bytes, want at most %d", len(f), MaxCatalogField)
			}
		}
		if !validSKU(p.SKU) {
			return nil, bad(0, "SKU %q: want a code of %s, as a URL path segment carries it unescaped", p.SKU, skuChars)
		}
		if prev, dup := seen[p.SKU]; dup {
			return nil, bad(0, "SKU %s repeats line %d", p.SKU, prev)
		}
		seen[p.SKU] = line
		if p.Name == "" {
			return nil, bad(1, "empty name")
		}
		for i, cat := range categories {
			if rec[2] == cat.Name {
				p.Category = i
			}
		}
		if p.Category < 0 {
			return nil, bad(2, "unknown category %q; want one of %s", rec[2], categoryNames())
		}
		price, err := strconv.ParseInt(rec[4], 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || price <= 0 {
			return nil, bad(4, "%q is not a positive integer number of kopecks", rec[4])
		}
		if err != nil || price > MaxPrice {
			return nil, bad(4, "price %s: want at most %d kopecks, so that a basket of %d products × %d and its delivery stay exact below 2^53", rec[4], int64(MaxPrice), MaxVisitPages, MaxQuantity)
		}
		p.Price = price
		if cols == 6 {
			p.Demand = -1
			for i, name := range DemandNames {
				if rec[5] == name {
					p.Demand = i
				}
			}
			if p.Demand < 0 {
				return nil, bad(5, "unknown demand level %q; want магнит, обычный or залёживается", rec[5])
			}
		}
		if len(c.Products) == MaxCatalogRows {
			return nil, &CatalogError{Line: line, Err: fmt.Errorf("more than %d products", MaxCatalogRows)}
		}
		c.ByCategory[p.Category] = append(c.ByCategory[p.Category], len(c.Products))
		c.Products = append(c.Products, p)
	}
	for i, idx := range c.ByCategory {
		if len(idx) == 0 {
			return nil, &CatalogError{Line: lastLine, Err: fmt.Errorf("no product in category %q: every category needs one", categories[i].Name)}
		}
	}
	return c, nil
}

func categoryNames() string {
	names := make([]string, len(categories))
	for i, c := range categories {
		names[i] = strconv.Quote(c.Name)
	}
	return strings.Join(names, ", ")
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		ce := &CatalogError{Line: pe.Line, Err: fmt.Errorf("at byte %d: %w", pe.Column, pe.Err)}
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			ce.Err = errors.New("wrong number of fields: want the header's columns, separated by commas (quote names that contain commas)")
		}
		return ce
	}
	return err
}
