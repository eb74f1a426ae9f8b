package builtin

import (
	"math"
	"slices"
)

// calibration maps the judge's raw ranking to P(the chosen skill is
// right): conf = sigmoid(theta . [1, margin, logit p, fit]), where margin
// is the candidate's logit minus the best other candidate's, p its softmax
// probability among the candidates (both clipped to ±maxMargin) and fit its
// similarity fit. theta is fitted on held-out routing of the registry's own
// texts (see doc.go). The margin says how far ahead the candidate is
// whatever the number of candidates; p also sees the crowd behind it
// (three close runners-up are worse than one), which is what tells an
// unrelated request from a clear one.
type calibration struct {
	theta [calFeatures]float64
	// items and correct count the held-out decisions the fit used.
	items, correct int
	// floor is the fit below which no candidate fits at all: requests
	// less like any skill than nearly every registry text is like its own
	// skill. Below it the judge answers "none".
	floor float64
}

const calFeatures = 4

// calPrior is the calibration a registry with no examples gets: margin
// and softmax logit share one logit of confidence per logit, and a weak
// fit costs some.
// calPriorWeight is its strength, in held-out decisions' worth.
var (
	calPrior       = [calFeatures]float64{-1, 0.5, 0.5, 2}
	calPriorWeight = 4.0
)

// noneFloor bounds the "none" floor: never above maxFloor (a registry of
// terse texts would otherwise call everything unrelated), never below
// minFloor.
const (
	minFloor = 0.04
	maxFloor = 0.15
)

// maxMargin bounds the margin: beyond it the softmax is saturated and the
// fit says more. A lone candidate has this margin.
const maxMargin = 12.0

// calInput is what calibration reads about one candidate.
type calInput struct {
	margin float64 // logit minus the best other candidate's
	prob   float64 // softmax probability among the candidates
	fit    float64 // similarity fit
}

func clipMargin(x float64) float64 { return math.Min(math.Max(x, -maxMargin), maxMargin) }

// calFeaturesOf is the calibration's input vector for a candidate.
func calFeaturesOf(in calInput) [calFeatures]float64 {
	p := math.Min(math.Max(in.prob, 1e-6), 1-1e-6)
	return [calFeatures]float64{1, clipMargin(in.margin), clipMargin(math.Log(p / (1 - p))), in.fit}
}

func (c calibration) confidence(in calInput) float64 {
	x := calFeaturesOf(in)
	var z float64
	for k := range x {
		z += c.theta[k] * x[k]
	}
	return sigmoid(z)
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// heldOut is one text routed by a model that never saw it.
type heldOut struct {
	calInput
	correct bool
	weight  float64
}

// fitCalibration finds the maximum a posteriori theta: logistic
// log-likelihood of the held-out outcomes plus a Gaussian prior centred
// on calPrior, by Newton's method (three parameters, a handful of steps).
func fitCalibration(obs []heldOut) calibration {
	c := calibration{theta: calPrior}
	for _, o := range obs {
		c.items++
		if o.correct {
			c.correct++
		}
	}
	for iter := 0; iter < 50; iter++ {
		var grad [calFeatures]float64
		var hess [calFeatures][calFeatures]float64
		for k := range grad {
			grad[k] = calPriorWeight * (c.theta[k] - calPrior[k])
			hess[k][k] = calPriorWeight
		}
		for _, o := range obs {
			x := calFeaturesOf(o.calInput)
			var z float64
			for k := range x {
				z += c.theta[k] * x[k]
			}
			p := sigmoid(z)
			y := 0.0
			if o.correct {
				y = 1
			}
			for a := range x {
				grad[a] += o.weight * (p - y) * x[a]
				for b := range x {
					hess[a][b] += o.weight * p * (1 - p) * x[a] * x[b]
				}
			}
		}
		step, ok := solve(hess, grad)
		if !ok {
			break
		}
		var size float64
		for k := range step {
			c.theta[k] -= step[k]
			size = max(size, math.Abs(step[k]))
		}
		if size < 1e-9 {
			break
		}
	}
	c.floor = noneFloorOf(obs)
	return c
}

// noneFloorOf puts the "none" floor at half the fit that all but the
// lowest 2% of correctly routed held-out texts reach, within
// [minFloor, maxFloor].
func noneFloorOf(obs []heldOut) float64 {
	var fits []float64
	for _, o := range obs {
		if o.correct {
			fits = append(fits, o.fit)
		}
	}
	if len(fits) == 0 {
		return minFloor
	}
	slices.Sort(fits)
	q := fits[int(0.02*float64(len(fits)))]
	return math.Min(math.Max(q/2, minFloor), maxFloor)
}

// solve solves h*x = g by Gaussian elimination with partial pivoting.
func solve(h [calFeatures][calFeatures]float64, g [calFeatures]float64) ([calFeatures]float64, bool) {
	const n = calFeatures
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(h[r][col]) > math.Abs(h[piv][col]) {
				piv = r
			}
		}
		if math.Abs(h[piv][col]) < 1e-12 {
			return g, false
		}
		h[col], h[piv] = h[piv], h[col]
		g[col], g[piv] = g[piv], g[col]
		for r := col + 1; r < n; r++ {
			f := h[r][col] / h[col][col]
			for c := col; c < n; c++ {
				h[r][c] -= f * h[col][c]
			}
			g[r] -= f * g[col]
		}
	}
	var x [n]float64
	for r := n - 1; r >= 0; r-- {
		s := g[r]
		for c := r + 1; c < n; c++ {
			s -= h[r][c] * x[c]
		}
		x[r] = s / h[r][r]
	}
	return x, true
}
