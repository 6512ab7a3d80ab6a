package world

// The world's numbers (world.md §3–§4, orders.md §3). Changing any of them changes the world:
// bump Version and regenerate the goldens.

// Time axis (world.md §3.1).
const (
	// OriginDate is D0 = Monday 2026-06-01 as days since 1970-01-01.
	OriginDate = 20605
	// CounterTZMinutes is the counter's UTC offset (Europe/Samara, UTC+4, no DST).
	CounterTZMinutes = 240
	// CanonicalSeed is the seed of the canonical world.
	CanonicalSeed = 20260601
	daySeconds    = 86400
)

// Population (world.md §3.2–§3.3).
const (
	inflowBase          = 3800
	buyerPercent        = 5
	pairedBuyerPercent  = 15
	oneShotPercent      = 75
	buyerOneShotPercent = 35
	returnTailDays      = 90
	// prehistoryDays is how far back cohorts reach: day D's audience comes from D−90 … D.
	prehistoryDays = returnTailDays
)

var weeklyProfilePercent = [7]int{105, 108, 107, 105, 95, 88, 92}

var (
	returnCountTable      = newTable(25, 20, 15, 12, 9, 7, 5, 4, 2, 1)
	buyerReturnCountTable = newTable(10, 11, 12, 12, 11, 10, 9, 7, 5, 4, 3, 2)
	// returnDelayTable: delays of 1…90 days after birth (index 0 = 1 day).
	returnDelayTable = func() table {
		w := make([]int, 90)
		for i := range w {
			switch d := i + 1; {
			case d <= 3:
				w[i] = 100
			case d <= 10:
				w[i] = 40
			case d <= 30:
				w[i] = 8
			default:
				w[i] = 1
			}
		}
		return newTable(w...)
	}()
)

// Visits and pages (world.md §3.4).
var (
	visitsPerDayTable = newTable(70, 22, 8)
	visitPagesTable   = newTable(250, 150, 120, 100, 88, 78, 68, 58, 50, 42, 35, 28, 22, 16)
)

const (
	thinkingPercent = 12
	shortGapMin     = 8
	shortGapMax     = 300 // exclusive
	longGapMin      = 300
	longGapMax      = 1500 // exclusive
	visitTimeout    = 1800
	tradeDelayMin   = 2
	tradeDelayMax   = 8 // exclusive
	// tradeRoom is the room a /confirmation page needs before midnight so that its purchase fits.
	tradeRoom = 8
)

// Page kinds (world.md §3.7). Browse kinds come first, in the column order of every
// percentage table.
const (
	pageHome = iota
	pageCatalog
	pageSearch
	pageProduct
	pageStatic
	pageCart
	pageCheckout
	pageConfirmation
)

// Transition tables over (HOME, CATALOG, SEARCH, PRODUCT, STATIC), in percent.
var (
	fromProduct = [5]int{9, 30, 8, 45, 8}
	fromOther   = [5]int{6, 12, 6, 70, 6}
)

// Funnel thresholds (world.md §4.1), percent.
const (
	cartPercent           = 6
	buyerCartPercent      = 18
	checkoutPercent       = 45
	buyerCheckoutPercent  = 60
	confirmPercent        = 55
	assignedFunnelStage   = 3
	abandonedPercent      = 10
	couponPercent         = 20
	lostPurchasePercent   = 3
	duplicatePercent      = 2
	duplicateDelayMin     = 30
	duplicateDelayMax     = 301 // exclusive
	duplicateNextVisitGap = visitTimeout
)

// Take probabilities by demand level (magnet, ordinary, slow-mover) and intent, percent.
var (
	takeShopping = [3]int{98, 94, 55}
	takeBrowsing = [3]int{6, 2, 1}
)

var quantityTable = newTable(85, 11, 4)

// Variants of a basket position, drawn U[0,6) (exist only in the raw ecommerce JSON).
var variants = [6]string{"стандарт", "белый", "серый", "бежевый", "синий", "зелёный"}

// Coupon is a coupon code and its discount.
type Coupon struct {
	Code    string
	Percent int64
}

// coupons are drawn U[0,4) per basket and used with COUPON_PERCENT probability.
var coupons = [4]Coupon{{"VESNA10", 10}, {"DOMASHNIY5", 5}, {"PERVYY15", 15}, {"UYUT7", 7}}

// Diurnal profiles per visitor-local hour, percent of the mean hour (world.md §3.5).
var (
	weekdayHours = [24]int{35, 20, 12, 8, 8, 12, 25, 45, 70, 105, 115, 130, 170, 165, 140, 130, 130, 140, 160, 185, 210, 180, 130, 75}
	weekendHours = [24]int{45, 30, 20, 12, 10, 10, 14, 22, 40, 70, 105, 140, 165, 160, 175, 175, 170, 165, 165, 175, 180, 165, 120, 67}
)

// Device is a device profile of the cookie passport (world.md §3.6).
type Device struct {
	Weight   int
	Category uint8 // 1 desktop, 2 phone, 3 tablet
	Browser  string
	Major    uint16
	Language string
	OS       string
	OSRoot   string
	Model    string
	Width    uint16
	Height   uint16
}

// devices sum to 100: desktop 32, phone 61, tablet 7.
var devices = [...]Device{
	{14, 1, "Chrome", 131, "ru", "Windows 10", "Windows", "", 1920, 1080},
	{6, 1, "Chrome", 131, "ru", "Windows 11", "Windows", "", 1366, 768},
	{6, 1, "YandexBrowser", 24, "ru", "Windows 10", "Windows", "", 1920, 1080},
	{3, 1, "Safari", 17, "ru", "macOS 14", "macOS", "", 1440, 900},
	{2, 1, "Firefox", 133, "ru", "Windows 10", "Windows", "", 1600, 900},
	{1, 1, "Chrome", 131, "en", "Ubuntu 24.04", "Linux", "", 1920, 1080},
	{10, 2, "Safari", 17, "ru", "iOS 17.4", "iOS", "iPhone 14", 390, 844},
	{6, 2, "Safari", 16, "ru", "iOS 16.6", "iOS", "iPhone 12", 390, 844},
	{13, 2, "Chrome", 131, "ru", "Android 14", "Android", "Galaxy A53", 412, 915},
	{12, 2, "Chrome", 130, "ru", "Android 13", "Android", "Redmi Note 12", 393, 873},
	{9, 2, "YandexBrowser", 24, "ru", "Android 13", "Android", "Honor X8", 360, 780},
	{6, 2, "Samsung Internet", 26, "ru", "Android 14", "Android", "Galaxy S23", 360, 780},
	{5, 2, "Chrome", 131, "ru", "Android 12", "Android", "Vivo Y21", 360, 800},
	{4, 3, "Safari", 17, "ru", "iPadOS 17.4", "iOS", "", 810, 1080},
	{3, 3, "Chrome", 130, "ru", "Android 13", "Android", "", 800, 1280},
}

const devicePhone = 2

// City is a city of the cookie passport.
type City struct {
	Weight   int
	Name     string
	ID       uint32
	TZ       int16 // minutes east of UTC
	IPPrefix string
}

// cities sum to 100; country is always RU/225.
var cities = [...]City{
	{34, "Samara", 51, 240, "192.0.2."},
	{12, "Tolyatti", 240, 240, "198.51.100."},
	{5, "Syzran", 11139, 240, "203.0.113."},
	{7, "Ulyanovsk", 195, 240, "198.18.0."},
	{7, "Saratov", 194, 240, "198.18.1."},
	{5, "Penza", 49, 180, "198.18.2."},
	{5, "Kazan", 43, 180, "198.18.3."},
	{4, "Ufa", 172, 300, "198.18.4."},
	{4, "Orenburg", 48, 300, "198.18.5."},
	{3, "Nizhny Novgorod", 47, 180, "198.18.6."},
	{2, "Volgograd", 38, 180, "198.18.7."},
	{5, "Moscow", 213, 180, "198.18.8."},
	{3, "Saint Petersburg", 2, 180, "198.18.9."},
	{2, "Yekaterinburg", 54, 300, "198.18.10."},
	{1, "Novosibirsk", 65, 420, "198.18.11."},
	{1, "Krasnodar", 35, 180, "198.18.12."},
}

// Source is a traffic source (world.md §3.8).
type Source struct {
	Weight   int
	Last     string // LastTrafficSource
	Referer  string
	UTM      [5]string // source, medium, campaign, content, term
	GCLID    uint8
	YCLID    bool
	EntryPct [5]int // entry page kind over (HOME, CATALOG, SEARCH, PRODUCT, STATIC)
}

// sources sum to 100.
var sources = [...]Source{
	{30, "organic", "https://yandex.ru/search/", [5]string{}, 0, false, [5]int{10, 30, 5, 50, 5}},
	{9, "organic", "https://www.google.com/", [5]string{}, 0, false, [5]int{10, 30, 5, 50, 5}},
	{22, "direct", "", [5]string{}, 0, false, [5]int{55, 15, 5, 15, 10}},
	{8, "ad", "https://yandex.ru/", [5]string{"yandex", "cpc", "posuda-poisk", "text-1", "kupit-skovorodu"}, 0, true, [5]int{5, 45, 0, 50, 0}},
	{6, "ad", "https://an.yandex.ru/", [5]string{"yandex", "cpc", "tekstil-rsya", "banner-2", ""}, 0, true, [5]int{5, 45, 0, 50, 0}},
	{5, "ad", "https://www.google.com/", [5]string{"google", "cpc", "home-shopping", "ad-1", "postelnoe-belyo"}, 1, false, [5]int{5, 45, 0, 50, 0}},
	{7, "social", "https://vk.com/", [5]string{"vk", "social", "vk-lenta", "post-3", ""}, 0, false, [5]int{15, 25, 0, 55, 5}},
	{5, "email", "", [5]string{"email", "email", "nedelnaya-rassylka", "blok-1", ""}, 0, false, [5]int{10, 40, 0, 45, 5}},
	{5, "referral", "https://market.example.com/", [5]string{}, 0, false, [5]int{5, 25, 0, 65, 5}},
	{3, "recommend", "https://dzen.ru/", [5]string{}, 0, false, [5]int{10, 30, 0, 55, 5}},
}

var utmNames = [5]string{"utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"}

const yclidMax = 10_000_000_000_000

// Site and pages (world.md §3.7).
const (
	SiteURL  = "https://shop.example.com"
	SiteName = "Дом и уют"
)

// Category is a catalog category: its name in the catalog file, SKU prefix and URL slug.
type Category struct {
	Name   string
	Prefix string
	Slug   string
}

// categories in index order 0…5; a visit browses one of them, drawn U[0,6).
var categories = [6]Category{
	{"Товары для дома", "HOME", "dlya-doma"},
	{"Текстиль", "TEXT", "tekstil"},
	{"Посуда", "POSU", "posuda"},
	{"Бытовая техника", "TECH", "tehnika"},
	{"Детские товары", "KIDS", "detskie"},
	{"Одежда и обувь", "WEAR", "odezhda"},
}

var searchQueries = [8]string{"полотенца", "сковорода", "постельное бельё", "детский стульчик", "электрочайник", "шторы", "набор кастрюль", "тапочки"}

var staticPages = [3]struct{ path, heading string }{
	{"/delivery", "Доставка и оплата"}, {"/about", "О магазине"}, {"/contacts", "Контакты"},
}

const (
	homeHeading         = "Интернет-магазин товаров для дома"
	searchHeading       = "Поиск по магазину"
	cartHeading         = "Корзина"
	checkoutHeading     = "Оформление заказа"
	confirmationHeading = "Заказ оформлен"
)

// Orders (orders.md §3.2).
const (
	orderWindowDays  = 7
	orderDeltaPct    = 4
	orderMomentHours = 144
)

var (
	deliveryKopecks  = [3]int64{0, 29_900, 59_000}
	deliveryTable    = newTable(35, 50, 15)
	outcomeTable     = newTable(95, 3, 2) // paid, paid then cancelled, unpaid then cancelled
	snapshotDelay    = newTable(90, 5, 5) // δ = 0, 1, 2
	momentHoursTable = func() table {
		w := make([]int, orderMomentHours)
		for h := range w {
			switch {
			case h < 6:
				w[h] = 100
			case h < 24:
				w[h] = 60
			case h < 48:
				w[h] = 25
			case h < 96:
				w[h] = 8
			default:
				w[h] = 2
			}
		}
		return newTable(w...)
	}()
)

// Order outcomes.
const (
	outcomePaid = iota
	outcomePaidThenCancelled
	outcomeUnpaidThenCancelled
)
