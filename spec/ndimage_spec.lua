-- gpu.ndimage: scipy.ndimage's filters against scipy 1.11.4's numbers (computed with numpy
-- 1.26 and written below): the five boundary modes (also past the input's length), origins,
-- convolutions, dims of strided and transposed views, scipy's casts to integer outputs,
-- Gaussian derivatives, uniform, minimum, maximum, median, rank and percentile filters,
-- N-D weights and footprints; and the errors.
local S = require("spec.support")
local nd = gpu.ndimage
local NAN = 0 / 0

-- scipy's results, by name (REF["g2d"] is ndi.gaussian_filter(img, [1.0, 0.5]), ...; the
-- calls are next to each test)
local REF = {
  ["long-reflect"] = {{100.0, 100.0, 10.0}, {10.0, 1.0, 1.0}},
  ["long-mirror"] = {{1.0, 10.0, 100.0}, {1.0, 10.0, 100.0}},
  ["long-nearest"] = {{1.0, 1.0, 1.0}, {100.0, 100.0, 100.0}},
  ["long-wrap"] = {{100.0, 1.0, 10.0}, {10.0, 100.0, 1.0}},
  ["long-constant"] = {{-1.0, -1.0, -1.0}, {-1.0, -1.0, -1.0}},
  ["orig"] = {{30.0, 40.0, 50.0, 60.0, 38.0, 20.0, 7.0}, {20.0, 30.0, 40.0, 50.0, 60.0, 38.0, 20.0}, {11.0, 20.0, 30.0, 40.0, 50.0, 60.0, 38.0}, {4.0, 11.0, 20.0, 30.0, 40.0, 50.0, 60.0}},
  ["conv"] = {{1.0, 4.0, 10.0, 20.0, 30.0, 40.0, 50.0}, {4.0, 10.0, 20.0, 30.0, 40.0, 50.0, 52.0}, {10.0, 20.0, 30.0, 40.0, 50.0, 52.0, 45.0}, {20.0, 30.0, 40.0, 50.0, 52.0, 45.0, 28.0}},
  ["conv3"] = {{33.0, 25.0, 10.0, 16.0, 22.0, 28.0, 34.0}, {25.0, 10.0, 16.0, 22.0, 28.0, 34.0, 33.0}, {10.0, 16.0, 22.0, 28.0, 34.0, 33.0, 25.0}},
  ["a2d-0"] = {{8.0, 11.5, 14.0, 15.5}, {0.0, -8.5, -18.0, -28.5}, {-80.0, -96.5, -114.0, -132.5}},
  ["a2d-1"] = {{1.5, 0.0, -2.5, -12.0}, {5.5, -16.0, -22.5, -44.0}, {-6.5, -48.0, -58.5, -92.0}},
  ["aT-1"] = {{8.0, 0.0, -80.0}, {11.5, -8.5, -96.5}, {14.0, -18.0, -114.0}, {15.5, -28.5, -132.5}},
  ["b-strided"] = {{{36.0, 32.0, 28.0, 24.0}, {20.0, 16.0, 12.0, 8.0}}, {{84.0, 80.0, 76.0, 72.0}, {68.0, 64.0, 60.0, 56.0}}},
  ["b-mid"] = {{{16.0, 26.0, 36.0, 46.0}, {36.0, 46.0, 56.0, 66.0}, {60.0, 70.0, 80.0, 90.0}}, {{136.0, 146.0, 156.0, 166.0}, {156.0, 166.0, 176.0, 186.0}, {180.0, 190.0, 200.0, 210.0}}},
  ["g1d-0.7-0"] = {0.2635229098826589, 1.615964859406406, 3.4368051832410607, 1.5990537240411813, -0.351976285942047, 3.3355308141585223, 5.557141840081677, 2.2706980651868056, 0.7126223645359102, 1.5606365254078272},
  ["g1d-0.7-1"] = {0.5751517908898315, 2.173003450902976, 0.3028333943458704, -3.232814377998694, 0.95614875541218, 4.569960097933222, -1.1397660673774996, -3.4301940305557226, 0.18218405588107692, 0.7965967888696778},
  ["g1d-0.7-2"] = {1.294522355719967, 1.2955996890856878, -4.919433007973758, -0.7336302804737951, 7.9387927591510845, -2.0381135274700344, -7.5356997992487464, 3.1690245191810873, 2.7233574272775787, -1.294029048011793},
  ["g1d-0.7-3"] = {0.8005432193317623, -3.320333269494891, -2.0167185570909725, 7.895474110354823, -0.4000059814860468, -9.49602929265868, 3.702784383824862, 5.793244908833818, -3.3477280829483416, -2.1334814754038067},
  ["g1d-1.5-0"] = {1.1154764619961655, 1.555975697075475, 1.859401980255637, 1.8017743770353567, 1.9756604267224094, 2.661538536361758, 3.0628048004820343, 2.611924160677123, 1.872181878489616, 1.4832616809044263},
  ["g1d-1.5-1"] = {0.2888568610981738, 0.4768301155012955, 0.0799757034771058, -0.07119385698950265, 0.4856886217849299, 0.7220963633686566, -0.034946675001966354, -0.7461269205991949, -0.612973218539161, -0.17500440846217222},
  ["g1d-1.5-2"] = {0.501267673593537, -0.1707902019690127, -0.45557928271801035, 0.2607617438141123, 0.6374823266061461, -0.3112492181649035, -0.9803347769289779, -0.28574737454726656, 0.4224744273300061, 0.3797920684599495},
  ["g1d-1.5-3"] = {-0.4429151463194156, -0.6982013570635294, 0.27325386608694535, 0.8846202709082411, -0.3555513233026468, -1.195270602719788, 0.08323372920000482, 0.9996095082085923, 0.27070884525134437, -0.16202784841728426},
  ["g1d-trunc"] = {1.3584974552095779, 1.817993030651668, 1.465012058929176, 1.7087865529327835, 2.559009282911733, 2.572130393266982, 2.662832012632044, 2.940924349344011, 2.037746182814367, 1.0295378253279945},
  ["g1d-radius"] = {0.9575033053615778, 1.9575033053615778, 2.7658256208229854, 1.3616644630922816, 0.830013221446311, 3.042496694638422, 4.489154547007549, 2.9150066107231556, 0.9575033053615778, 0.7233289261845631},
  ["g2d"] = {{3.421430171510821, 5.470491907967653, 3.864229459792941, 8.046311245584047, 5.219509252934787, 2.1951120281374337}, {5.534308282647123, 4.9103505346477805, 4.644129423693231, 7.048789921821512, 4.255820700773782, 3.2521597554217916}, {6.067738390725492, 4.25781089610877, 6.294295793665222, 5.715802056434505, 3.3267577094111074, 5.368626196020068}, {5.011976204132962, 4.7952729788636725, 6.802538852546619, 4.414325426473367, 3.8024034634229054, 6.160051452283458}, {4.1790316854272085, 6.566601412577597, 6.391903954391876, 3.600910342066953, 5.5688421509115615, 5.812468349603751}},
  ["g2d-skip"] = {{1.9008951018063194, 4.0852887276389485, 5.643423133244024, 6.662229235746016, 5.607428216948828, 3.4049158167351434}, {7.5950841832648575, 5.39109964618041, 4.287548149562879, 4.712451850437121, 3.60890035381959, 1.4049158167351432}, {6.188986584892606, 6.054257685273781, 6.72614892717106, 6.018262768978584, 5.508613673988801, 7.147855376014025}, {4.188986584892605, 4.05425768527378, 4.726148927171059, 4.018262768978584, 3.508613673988801, 5.147855376014025}, {4.852144623985976, 6.491386326011201, 5.981737231021416, 5.27385107282894, 5.94574231472622, 5.811013415107395}},
  ["g2d-order"] = {{0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, {0.09535824051427422, 0.20698776527574003, 0.2879677380245983, -0.2579430540084116, -0.24593007221202517, 0.18766934350283881}, {-0.40444232562132804, -0.06915040853928717, 0.14849223720499338, -0.34010293242111417, -0.158380242547499, 0.31971384334155106}, {0.03821971481956954, 0.1286517902152382, -0.10688510102037548, -0.25760641184227984, 0.15939753998049327, 0.37985698869119433}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},
  ["g2d-int"] = {{39, 45, 52, 59, 49, 32}, {53, 50, 52, 55, 46, 36}, {55, 52, 54, 51, 45, 47}, {49, 52, 54, 48, 46, 53}, {48, 57, 56, 49, 51, 56}},
  ["g2d-f32"] = {{4.514089584350586, 4.817919731140137, 5.279224872589111, 5.4293212890625, 4.760823726654053, 3.8640124797821045}, {5.04148530960083, 5.12158727645874, 5.314135551452637, 5.278894901275635, 4.731951713562012, 4.148223400115967}, {5.312032699584961, 5.328114032745361, 5.35080099105835, 5.149647235870361, 4.822506904602051, 4.685970783233643}, {5.218544960021973, 5.373306751251221, 5.376357078552246, 5.114879131317139, 5.004698276519775, 5.167718887329102}, {5.155696868896484, 5.437475204467773, 5.432873249053955, 5.16282320022583, 5.178274631500244, 5.426609039306641}},
  ["g2d-out"] = {{4.011959596541894, 4.600463050864849, 5.301656635549415, 6.03573090786063, 5.01626290094522, 3.251010974165676}, {5.329423876655577, 5.094759630986783, 5.310557306169185, 5.570839248515595, 4.669495765659817, 3.670482791018264}, {5.5714498651997, 5.308012312945042, 5.544430116821621, 5.211631803680304, 4.582300846629728, 4.813206097088775}, {5.015975756112178, 5.32933184370869, 5.562381162366657, 4.9232171417150035, 4.715064892407344, 5.440597581413112}, {4.923800669402237, 5.753122277611276, 5.646248808512791, 4.9433709339484855, 5.188246918962375, 5.664968286541788}},
  ["g2d-axes"] = {{2.2934668848574917, 4.116713250853011, 5.644359947616327, 6.662764558244474, 5.6262263084258715, 3.656469050002826}, {7.343530949997175, 5.372301554703367, 4.287012827064419, 4.712987172935581, 3.627698445296633, 1.6564690500028256}, {5.986183829445267, 6.036931730667499, 6.725613604672601, 6.017325954606282, 5.477189150774738, 6.756755729833615}, {3.986183829445267, 4.036931730667499, 4.725613604672601, 4.017325954606282, 3.477189150774738, 4.756755729833615}, {5.243244270166386, 6.522810849225262, 5.98267404539372, 5.274386395327399, 5.963068269332501, 6.013816170554733}},
  ["u1d"] = {{0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5}, {0.3333333333333333, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {1.5, 2.5, 3.5, 4.5, 5.5, 4.5, 3.25}},
  ["u1d-int"] = {1, 2, 3, 5, 2, 0},
  ["u2d"] = {{4.111111111111111, 3.888888888888889, 6.0, 5.666666666666667, 5.333333333333333, 2.6666666666666665}, {5.222222222222222, 5.0, 5.888888888888889, 5.555555555555556, 5.222222222222222, 3.777777777777778}, {5.666666666666667, 5.444444444444444, 5.111111111111111, 4.777777777777778, 4.444444444444444, 4.222222222222221}, {4.888888888888889, 5.888888888888889, 5.555555555555556, 5.222222222222222, 4.888888888888889, 5.888888888888889}, {4.777777777777778, 5.777777777777778, 5.444444444444444, 5.111111111111111, 4.777777777777778, 5.777777777777778}},
  ["u2d-sizes"] = {{3.75, 3.0, 5.0, 6.5, 5.25, 4.5}, {4.5, 3.75, 5.75, 4.5, 3.25, 5.25}, {5.25, 7.25, 6.5, 5.25, 6.75, 6.0}, {3.25, 5.25, 4.5, 3.25, 4.75, 4.0}, {6.75, 6.0, 5.25, 6.75, 5.5, 4.75}},
  ["u2d-uint8"] = {{0, 70, 100, 130, 160, 80}, {90, 105, 80, 110, 140, 60}, {160, 120, 95, 125, 100, 75}, {120, 80, 110, 140, 60, 90}, {80, 95, 125, 100, 75, 105}},
  ["c2d"] = {{17.5, 0.5, 29.0, 8.0, 9.0, 9.0}, {7.5, 1.5, 30.0, 9.0, 10.0, 10.0}, {13.5, 13.0, 14.0, 4.0, 10.5, -0.5}, {8.5, 30.0, 9.0, 10.0, 27.5, 16.5}, {9.0, 14.0, 4.0, 10.5, 11.5, 11.5}},
  ["c2d-origin"] = {{-1.0, 6.5, -2.5, -0.5, 3.25, 3.75}, {1.5, 30.0, 9.0, 10.0, 9.75, 4.25}, {13.0, 14.0, 4.0, 10.5, -1.25, 2.25}, {30.0, 9.0, 10.0, 27.5, -1.25, 11.25}, {14.0, 4.0, 10.5, 11.5, -1.25, 9.25}},
  ["v2d"] = {{23.0, 12.0, 18.5, -2.5, 15.0, 9.0}, {12.5, 23.5, 13.5, 14.5, 21.0, 15.0}, {7.5, 18.5, -2.5, 15.0, 16.0, -1.0}, {13.5, 13.5, 14.5, 21.0, 11.0, 16.0}, {14.5, 3.5, 21.0, 22.0, 1.0, 22.5}},
  ["v2d-origin"] = {{-5.5, 23.0, 13.0, 14.0, 11.5, 10.5}, {12.0, 18.5, -2.5, 15.0, 18.0, 6.0}, {23.5, 13.5, 14.5, 21.0, 13.0, 12.0}, {18.5, -2.5, 15.0, 16.0, -3.0, 12.5}, {13.5, 14.5, 21.0, 11.0, 14.0, 18.5}},
  ["c2d-nan"] = {{NAN, NAN, 17.0, 16.0, 26.0, 14.0}, {NAN, 25.0, 13.0, 12.0, 22.0, 10.0}, {23.0, 19.0, 7.0, 28.0, 16.0, 4.0}, {17.0, 13.0, 12.0, 22.0, 10.0, 9.0}, {11.0, 7.0, 28.0, 16.0, 4.0, 25.0}},
  ["c3d"] = {{{2.666666666666666, 3.0, 4.0, 4.333333333333333}, {2.666666666666666, 3.0, 3.9999999999999996, 4.333333333333333}, {6.666666666666666, 7.0, 7.999999999999999, 8.333333333333332}}, {{14.666666666666664, 15.0, 16.0, 16.333333333333332}, {14.666666666666664, 15.0, 15.999999999999998, 16.333333333333332}, {18.666666666666664, 19.0, 20.0, 20.333333333333332}}},
  ["min1d"] = {5.0, 1.0, 1.0, 1.0, 0.0, 0.0},
  ["max1d"] = {9.0, 5.0, 8.0, 8.0, 4.0, 100.0},
  ["min2d"] = {{0.0, 0.0, 1.0, 1.0, 0.0, 0.0}, {0.0, 0.0, 1.0, 1.0, 0.0, 0.0}, {1.0, 1.0, 1.0, 0.0, 0.0, 0.0}, {1.0, 1.0, 1.0, 0.0, 0.0, 0.0}, {1.0, 1.0, 1.0, 0.0, 0.0, 0.0}},
  ["max2d"] = {{7.0, 7.0, 10.0, 10.0, 10.0, 6.0}, {9.0, 9.0, 10.0, 10.0, 10.0, 6.0}, {9.0, 10.0, 10.0, 10.0, 9.0, 9.0}, {7.0, 10.0, 10.0, 10.0, 9.0, 9.0}, {10.0, 10.0, 10.0, 9.0, 9.0, 9.0}},
  ["minfp"] = {{-1.0, -1.0, -1.0, -1.0, -1.0, -1.0}, {-1.0, 0.0, 1.0, 3.0, 2.0, -1.0}, {-1.0, 1.0, 5.0, 1.0, 0.0, -1.0}, {-1.0, 1.0, 3.0, 2.0, 0.0, -1.0}, {-1.0, 5.0, 1.0, 0.0, 4.0, -1.0}},
  ["maxfp"] = {{7.0, 7.0, 7.0, 10.0, 10.0, 10.0}, {9.0, 9.0, 5.0, 10.0, 8.0, 10.0}, {9.0, 9.0, 9.0, 10.0, 6.0, 8.0}, {7.0, 7.0, 10.0, 8.0, 10.0, 9.0}, {5.0, 5.0, 10.0, 6.0, 8.0, 9.0}},
  ["med"] = {{5.0, 3.0, 7.0, 6.0, 6.0, 2.0}, {7.0, 5.0, 6.0, 6.0, 6.0, 2.0}, {5.0, 5.0, 5.0, 4.0, 4.0, 4.0}, {5.0, 6.0, 6.0, 6.0, 5.0, 7.0}, {3.0, 6.0, 6.0, 6.0, 5.0, 5.0}},
  ["med1"] = {3, 3, 2, 5, 5, 4, 7},
  ["medfp"] = {{5.0, 6.0, 3.0, 9.0, 5.0, 3.0}, {7.0, 3.0, 7.0, 6.0, 4.0, 0.0}, {5.0, 3.0, 8.0, 4.0, 2.0, 9.0}, {5.0, 7.0, 6.0, 4.0, 6.0, 7.0}, {3.0, 8.0, 4.0, 2.0, 7.0, 5.0}},
  ["i32"] = {0, 1, 1, 0, 0},
  ["u8"] = {2, 144, 106, 9, 12},
  ["bool"] = {true, false, false, true},
  ["outf"] = {0.26, 1.02, 1.78, 0.45999999999999996, -0.7},
  ["f32"] = {0.13333334028720856, 0.20000000298023224, 0.2666666805744171},
  ["rank1"] = {{0.0, 0.0, 3.0, 3.0, 2.0, 0.0}, {0.0, 1.0, 3.0, 2.0, 2.0, 0.0}, {3.0, 1.0, 1.0, 1.0, 0.0, 0.0}, {3.0, 3.0, 2.0, 2.0, 2.0, 2.0}, {3.0, 3.0, 2.0, 2.0, 2.0, 5.0}},
  ["rankneg"] = {{20.0, 20.0, 20.0, 20.0, 20.0, 20.0}, {9.0, 3.0, 7.0, 6.0, 4.0, 6.0}, {7.0, 3.0, 8.0, 4.0, 2.0, 9.0}, {5.0, 7.0, 6.0, 4.0, 6.0, 7.0}, {3.0, 8.0, 4.0, 2.0, 7.0, 5.0}},
  ["pct"] = {{0.0, 0.0, 3.0, 3.0, 2.0, 2.0}, {0.0, 1.0, 3.0, 3.0, 2.0, 0.0}, {5.0, 3.0, 3.0, 2.0, 2.0, 0.0}, {3.0, 3.0, 3.0, 2.0, 2.0, 2.0}, {3.0, 3.0, 2.0, 2.0, 2.0, 5.0}},
  ["pctneg"] = {{0.0, 7.0, 7.0, 10.0, 10.0, 6.0}, {9.0, 9.0, 7.0, 10.0, 10.0, 6.0}, {9.0, 9.0, 10.0, 10.0, 8.0, 9.0}, {7.0, 7.0, 10.0, 10.0, 6.0, 9.0}, {5.0, 10.0, 10.0, 8.0, 9.0, 9.0}},
  ["pct100"] = {{9.0, 9.0, 10.0, 10.0, 10.0, 6.0}, {9.0, 10.0, 10.0, 10.0, 10.0, 9.0}, {9.0, 10.0, 10.0, 10.0, 9.0, 9.0}, {10.0, 10.0, 10.0, 10.0, 9.0, 9.0}, {10.0, 10.0, 10.0, 9.0, 9.0, 9.0}},
  ["sobel"] = {{17.0, 1.0, 12.0, 12.0, -32.0, -16.0}, {-5.0, -10.0, 12.0, 1.0, -21.0, -5.0}, {-16.0, 1.0, 12.0, -21.0, 1.0, 17.0}, {-5.0, 12.0, 1.0, -21.0, 12.0, 17.0}, {17.0, 12.0, -21.0, 1.0, 12.0, -5.0}},
  ["sobel0"] = {{19.0, 16.0, 11.0, 17.0, 12.0, 9.0}, {17.0, 6.0, 6.0, -5.0, -5.0, 17.0}, {-5.0, -5.0, 6.0, -5.0, -5.0, 6.0}, {-5.0, 6.0, -5.0, -5.0, 6.0, -5.0}, {-14.0, -11.0, -17.0, -12.0, -7.0, -15.0}},
  ["prewitt"] = {{10.0, -2.0, 9.0, 9.0, -24.0, -12.0}, {-1.0, -2.0, 9.0, -2.0, -13.0, -1.0}, {-12.0, -2.0, 9.0, -13.0, -2.0, 10.0}, {-1.0, 9.0, -2.0, -13.0, 9.0, 10.0}, {10.0, 9.0, -13.0, -2.0, 9.0, -1.0}},
  ["sobel-u8"] = {{84, 20, 240, 240, 128, 192}, {156, 56, 240, 20, 92, 156}, {192, 20, 240, 92, 20, 84}, {156, 240, 20, 92, 240, 84}, {84, 240, 92, 20, 240, 156}},
  ["laplace"] = {{32.0, -15.0, 7.0, -15.0, -4.0, 4.0}, {-19.0, 0.0, 22.0, -11.0, 0.0, 19.0}, {-8.0, 11.0, -22.0, 0.0, 11.0, -25.0}, {-8.0, 22.0, -11.0, 0.0, 22.0, -14.0}, {18.0, -29.0, 4.0, 15.0, -29.0, 12.0}},
  ["glap"] = {{3.7979428327618567, -2.6779678735829666, 4.716094558401141, -6.807420636437794, -1.2683305818790225, 3.6136782959729965}, {-2.453334621377066, 0.21840050413552747, 2.862535215087595, -4.450673727278984, 1.4929970610308594, 2.3382835006847253}, {-2.788800431220369, 3.528616761890882, -3.092291214092974, -1.571615820120329, 4.528551332664686, -2.977548132290938}, {0.5103871232463504, 2.7220245876893863, -4.094877504092752, 1.956530017167679, 3.7503910106837224, -2.9204250017708175}, {2.549550414928887, -3.6515739973871524, -2.0983917679475277, 4.348792764481692, -2.534725852703761, -0.3147705819274077}},
  ["ggm"] = {{1.6413889217878532, 1.025646824418731, 0.7405757116389242, 0.41446395609021447, 1.396371824616024, 1.3243400286018547}, {1.0472757658905676, 0.49899651127262384, 0.27430391443485724, 0.42870360667380936, 0.8747165146647916, 1.019857748640345}, {0.2695239054826668, 0.08388841656442292, 0.04808772793763452, 0.4332769872026339, 0.24596584344725403, 0.9192509294539744}, {0.4578524664683103, 0.23269073137772142, 0.22200171749520636, 0.3499303321877481, 0.35368320952547594, 0.6417674456891577}, {0.8607768682771193, 0.5204478675104374, 0.43759528942703596, 0.2907967349449051, 0.46558831213669405, 0.21856339583222423}},
  ["ggm-i32"] = {{10, 5, 9, 3, 18, 11}, {10, 4, 4, 4, 12, 9}, {5, 0, 1, 7, 2, 10}, {3, 4, 2, 7, 5, 6}, {6, 7, 7, 3, 7, 2}},
}

local close = S.close   -- got against nested tables of what scipy gave

-- img = (np.arange(30.).reshape(5, 6) * 7) % 11
local img_t = {}
for i = 0, 4 do
  img_t[i + 1] = {}
  for j = 0, 5 do img_t[i + 1][j + 1] = ((6 * i + j) * 7) % 11 end
end
local img = gpu.array(img_t, "float64")
local function scaled(f)
  local t = {}
  for i, row in ipairs(img_t) do t[i] = {} for j, v in ipairs(row) do t[i][j] = v * f end end
  return t
end
local xx = gpu.arange(1, 8, "float64")   -- np.arange(1., 8)
local sig = gpu.array({0, 1, 5, 2, -3, 4, 8, 1, 0, 2}, "float64")

describe("gpu.ndimage.correlate1d and convolve1d", function()
  it("extend the input by scipy's five modes, also past its length", function()
    local x = gpu.array({1, 2, 4, 8, 16}, "float64")
    -- ndi.correlate1d([1., 2, 4, 8, 16], [1, 10, 100], mode=m, cval=-1)
    local want = {reflect = {211, 421, 842, 1684, 1768}, mirror = {212, 421, 842, 1684, 968},
                  nearest = {211, 421, 842, 1684, 1768}, wrap = {226, 421, 842, 1684, 268},
                  constant = {209, 421, 842, 1684, 68}}
    for m, w in pairs(want) do close(w, nd.correlate1d(x, {1, 10, 100}, {mode = m, cval = -1}), 0) end
    close(want.reflect, nd.correlate1d(x, {1, 10, 100}), 0)   -- the default
    close(want.reflect, nd.correlate1d(x, {1, 10, 100}, {mode = "grid-mirror"}), 0)
    close(want.wrap, nd.correlate1d(x, {1, 10, 100}, {mode = "grid-wrap"}), 0)
    close(want.constant, nd.correlate1d(x, {1, 10, 100}, {mode = "grid-constant", cval = -1}), 0)
    -- a filter of 9 on 3 elements: ndi.correlate1d([1., 10, 100], np.eye(9)[0] and [8], mode=m, cval=-1)
    local x3 = gpu.array({1, 10, 100}, "float64")
    local first, last = {1, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 1}
    for _, m in ipairs({"reflect", "mirror", "nearest", "wrap", "constant"}) do
      close(REF["long-" .. m][1], nd.correlate1d(x3, first, -1, {mode = m, cval = -1}), 0)
      close(REF["long-" .. m][2], nd.correlate1d(x3, gpu.array(last, "float64"), 1, {mode = m, cval = -1}), 0)
    end
    -- one element: every mode repeats it
    close({333}, nd.correlate1d(gpu.array({3}, "float64"), {1, 10, 100}, {mode = "mirror"}), 0)
  end)

  it("shift the window by origin, and convolve with the weights reversed", function()
    for i, o in ipairs({-2, -1, 0, 1}) do
      close(REF.orig[i], nd.correlate1d(xx, {1, 2, 3, 4}, {origin = o, mode = "constant"}), 0)
      close(REF.conv[i], nd.convolve1d(xx, {1, 2, 3, 4}, {origin = o, mode = "constant"}), 0)
    end
    for i, o in ipairs({-1, 0, 1}) do close(REF.conv3[i], nd.convolve1d(xx, gpu.array({1, 2, 3}, "float64"), {origin = o, mode = "wrap"}), 0) end
  end)

  it("filter along any dim of N-D arrays and views", function()
    local a = gpu.array({{0, 1, 4, 9}, {16, 25, 36, 49}, {64, 81, 100, 121}}, "float64")   -- np.arange(12.).reshape(3, 4)**2
    close(REF["a2d-0"], nd.correlate1d(a, {1, -2, 0.5}, 1), 1e-15)
    close(REF["a2d-1"], nd.correlate1d(a, {1, -2, 0.5}, -1, {mode = "mirror"}), 1e-15)
    close(REF["aT-1"], nd.correlate1d(a.T, {1, -2, 0.5}, 2, {mode = "nearest"}), 1e-15)
    local b = gpu.arange(24, "float64"):reshape(2, 3, 4)
    local v = b[{{}, {1, 3, 2}}]:flip(3)   -- b[:, ::2, ::-1]
    close(REF["b-strided"], nd.correlate1d(v, {3, 1}, 2, {mode = "wrap"}), 0)
    close(REF["b-mid"], nd.convolve1d(b, {1, 2, 3, 4}, 2), 0)
  end)

  it("give the input's dtype, cast as scipy's C does (truncated, wrapped), or output's", function()
    local i32 = gpu.array({1, 2, 3, -4, 5}, "int32")
    local r = nd.correlate1d(i32, {0.5, 0.26}, {mode = "constant"})
    assert.are.equal("int32", r.dtype)
    close(REF.i32, r, 0)
    close(REF.u8, nd.correlate1d(gpu.array({1, 200, 3, 4, 5}, "uint8"), {0.5, 2}, {mode = "constant"}), 0)
    close(REF.bool, nd.correlate1d(gpu.array({true, false, true, true}, "bool"), {0.5, 0.5}), 0)
    local f = nd.correlate1d(i32, {0.5, 0.26}, {mode = "constant", output = "double"})
    assert.are.equal("float64", f.dtype)
    close(REF.outf, f, 1e-15)
    local o = gpu.zeros({5}, "float64")
    assert.are.equal(o, nd.correlate1d(i32, {0.5, 0.26}, {mode = "constant", output = o}))
    close(REF.outf, o, 1e-15)
    local f32 = nd.correlate1d(gpu.array({0.1, 0.2, 0.3}), {1 / 3, 1 / 3, 1 / 3})
    assert.are.equal("float32", f32.dtype)
    close(REF.f32, f32, 0)
  end)

  it("cast a value past int32's range (int64's for uint32 and int64) or NaN as scipy's C on x86-64", function()
    -- scipy 1.17.1: ndi.correlate1d(np.int32([2e9, 0, -2e9]), [1, 1]) [-2147483648 2e9 -2e9]
    close({-2147483648, 2000000000, -2000000000}, nd.correlate1d(gpu.array({2e9, 0, -2e9}, "int32"), {1, 1}), 0)
    -- x = [nan, inf, 3e9, -3e9, 1e19, 40000.5, 256, -1.5]; ndi.correlate1d(x, [1.0], output=dt):
    -- the least of int32 (int64), wrapped to the width; uint64 shown as int64 holds it; bool
    -- the byte nonzero
    local x = gpu.array({NAN, math.huge, 3e9, -3e9, 1e19, 40000.5, 256, -1.5}, "float64")
    local least = math.mininteger
    local want = {
      int16 = {0, 0, 0, 0, 0, -25536, 256, -1},
      int32 = {-2147483648, -2147483648, -2147483648, -2147483648, -2147483648, 40000, 256, -1},
      uint32 = {0, 0, 3000000000, 1294967296, 0, 40000, 256, 4294967295},
      int64 = {least, least, 3000000000, -3000000000, least, 40000, 256, -1},
      uint64 = {least, 0, 3000000000, -3000000000, -8446744073709551616, 40000, 256, -1},
      bool = {false, false, false, false, false, true, false, true}}
    for dt, w in pairs(want) do
      local r = nd.correlate1d(x, {1.0}, {output = dt})
      assert.are.equal(dt, r.dtype)
      assert.are.same(w, r:totable(), dt)
    end
    -- a cval in the input's type by the same cast: ndi.maximum_filter(np.uint8([5, 6, 7, 8]),
    -- footprint=[1, 0, 1], mode='constant', cval=3e9 + 7) [6 7 8 7] (cval 0)
    close({6, 7, 8, 7}, nd.maximum_filter(gpu.array({5, 6, 7, 8}, "uint8"), {footprint = {1, 0, 1}, mode = "constant", cval = 3e9 + 7}), 0)
  end)

  it("take float16 (in float64, where scipy refuses it) and 0-D arrays", function()
    -- ndi.gaussian_filter1d([1., 2, 3, 4], 1.0) = [1.42690712, 2.06312251, 2.93687749, 3.57309288]
    local h = nd.gaussian_filter1d(gpu.array({1, 2, 3, 4}, "float16"), 1.0)
    assert.are.equal("float16", h.dtype)
    close({1.42690712, 2.06312251, 2.93687749, 3.57309288}, h, 1e-3)
    -- ndi.correlate(np.array(2.), np.array(3.)) = 6.0
    close(6, nd.correlate(gpu.full({}, 2, "float64"), gpu.full({}, 3, "float64")), 0)
  end)

  it("give an empty result of an empty input", function()
    local r = nd.correlate1d(gpu.zeros({0, 3}), {1, 2}, 1)
    assert.are.same({0, 3}, r.shape)
    assert.are.equal("float32", r.dtype)
  end)

  -- before: other weights were summed from tap 0 in order, so float64 results differed from
  -- scipy's in the last bit and an integer output by one
  it("sum other 1-D weights as NI_Correlate1D: the last tap's product, then the others in order", function()
    -- scipy 1.17.1, x = [0.3, 1.7, 2.9, 4.1, 5.5, 7.3]: ndi.correlate1d(x, [0.1, 0.7, 0.2]),
    -- ndi.correlate1d(x, [0.1, 0.7, 0.2, 0.3]), ndi.convolve1d(x, [0.1, 0.7, 0.2])
    local x = gpu.array({0.3, 1.7, 2.9, 4.1, 5.5, 7.3}, "float64")
    assert.are.same({0.58, 1.7999999999999998, 3.0199999999999996, 4.26, 5.72, 7.119999999999999},
                    nd.correlate1d(x, {0.1, 0.7, 0.2}):totable())
    assert.are.same({0.95, 1.4500000000000002, 3.03, 4.67, 6.449999999999999, 7.909999999999999},
                    nd.correlate1d(x, {0.1, 0.7, 0.2, 0.3}):totable())
    assert.are.same({0.44, 1.54, 2.78, 3.9999999999999996, 5.3999999999999995, 6.9399999999999995},
                    nd.convolve1d(x, gpu.array({0.1, 0.7, 0.2}, "float64")):totable())
    -- ndi.correlate1d([1., 7, 5, 1, 3, 4], [0.1, 0.7, 0.2], output=np.int32) [2 6 4 1 2 3]
    -- (5.9999999999999991 and 3 summed from tap 0: 5 and 3)
    local y = gpu.array({1, 7, 5, 1, 3, 4}, "float64")
    assert.are.same({2, 6, 4, 1, 2, 3}, nd.correlate1d(y, {0.1, 0.7, 0.2}, {output = "int32"}):totable())
    -- ndi.correlate1d(np.array([-0., -0.]), [1, 2]) [-0. -0.] (the first product, not 0 + it)
    assert.are.equal("-0.0", tostring(nd.correlate1d(gpu.array({-0.0, -0.0}, "float64"), {1, 2}):item(1)))
    -- every point, inside or near the edges, of filters of 5, 40 (ndi_line) and 300 taps
    -- (ndi_filter) against that sum made here, in "wrap" along dim 2 of a 2-row array
    local n, xs = 400, {}
    for i = 1, n do xs[i] = math.cos(i) * 10 end
    local a = gpu.array({xs, xs}, "float64")
    for _, K in ipairs({5, 40, 300}) do
      local w = {}
      for k = 1, K do w[k] = math.sin(k) end
      local function at(j) return xs[(j - 1) % n + 1] end
      local r = nd.correlate1d(a, w, 2, {mode = "wrap"}):totable()
      for i = 1, n do
        local c = i - K // 2 - 1   -- tap k reads at(c + k)
        local want = at(c + K) * w[K]
        for k = 1, K - 1 do want = want + at(c + k) * w[k] end
        assert.are.equal(want, r[2][i], ("K %d, element %d"):format(K, i))
      end
    end
  end)
end)

describe("gpu.ndimage.gaussian_filter1d and gaussian_filter", function()
  it("are scipy's Gaussians and their derivatives (order 0 to 3)", function()
    for _, s in ipairs({0.7, 1.5}) do
      for o = 0, 3 do close(REF[("g1d-%s-%d"):format(s, o)], nd.gaussian_filter1d(sig, s, {order = o}), 1e-13) end
    end
    close(REF["g1d-trunc"], nd.gaussian_filter1d(sig, 2.0, -1, {truncate = 1.0, mode = "constant", cval = 1}), 1e-13)
    close(REF["g1d-radius"], nd.gaussian_filter1d(sig, 2.0, {radius = 1, mode = "wrap"}), 1e-13)
  end)

  it("filter every dim in turn, one sigma, order and mode a dim, skipping sigma 0", function()
    close(REF.g2d, nd.gaussian_filter(img, {1.0, 0.5}), 1e-13)
    close(REF["g2d-skip"], nd.gaussian_filter(img, {0, 1.0}, {mode = {"constant", "nearest"}, cval = 2}), 1e-13)
    close(REF["g2d-order"], nd.gaussian_filter(img, 1.0, {order = {1, 0}, mode = "mirror"}), 1e-13)
    close(REF["g2d-axes"], nd.gaussian_filter(img, 1.0, {dims = 2}), 1e-13)
    close(img_t, nd.gaussian_filter(img, 0), 0)
  end)

  it("write each pass in the output's dtype, as scipy does", function()
    local i = gpu.array(scaled(10), "int32")
    close(REF["g2d-int"], nd.gaussian_filter(i, 1.0), 0)
    close(REF["g2d-out"], nd.gaussian_filter(gpu.array(img_t, "int32"), 1.0, {output = "float64"}), 1e-13)
    local f = nd.gaussian_filter(gpu.array(img_t, "float32"), 1.3)
    assert.are.equal("float32", f.dtype)
    close(REF["g2d-f32"], f, 1e-6)
  end)

  -- before: the weights were normalised by a sum in order and the taps summed in order, so
  -- an integer output of a flat image lost one (uint8 255 became 254)
  it("sum the weights as NumPy and the taps in scipy's order, to scipy's bits", function()
    -- ndi.gaussian_filter(np.full((4, 4), 255, np.uint8), 1.2)[0] [255 255 255 255]; 1 and 1.7: [1 1 1 1]
    close({255, 255, 255, 255}, nd.gaussian_filter(gpu.full({4, 4}, 255, "uint8"), 1.2)[{1}], 0)
    close({1, 1, 1, 1}, nd.gaussian_filter(gpu.full({4, 4}, 1, "uint8"), 1.7)[{1}], 0)
    -- ndi.gaussian_filter1d(np.full(5, 9.0), 1.7)[2] == 9.0 exactly
    assert.are.equal(9.0, nd.gaussian_filter1d(gpu.full({5}, 9, "float64"), 1.7):item(3))
    -- ndi.gaussian_filter1d(np.full(6, v, np.uint8), s)[2] == v for these
    for _, s in ipairs({1.2, 2.33, 4.87}) do
      for _, v in ipairs({1, 3, 7, 100, 255}) do
        assert.are.equal(v, nd.gaussian_filter1d(gpu.full({6}, v, "uint8"), s):item(3), ("sigma %s, %d"):format(s, v))
      end
    end
    -- symmetric and antisymmetric weights: the centre, then (x[-j] +- x[j]) * w[-j] outermost
    -- first, as NI_Correlate1D: ndi.correlate1d([0.3, 1.7, 2.9, 4.1, 5.5, 7.3], [0.1, 0.7, 0.1])[4]
    -- 4.9899999999999993, [5] 6.3899999999999997; with [-0.3, 0.2, 0.3], [3] 1.6000000000000001
    local x = gpu.array({0.3, 1.7, 2.9, 4.1, 5.5, 7.3}, "float64")
    local r = nd.correlate1d(x, {0.1, 0.7, 0.1})
    assert.are.equal(4.9899999999999993, r:item(5))
    assert.are.equal(6.3899999999999997, r:item(6))
    assert.are.equal(1.6000000000000001, nd.correlate1d(x, gpu.array({-0.3, 0.2, 0.3}, "float64")):item(4))
  end)
end)

describe("gpu.ndimage.uniform_filter1d and uniform_filter", function()
  it("are the means of windows of size, shifted by origin", function()
    for i, so in ipairs({{2, 0}, {3, 1}, {4, -1}}) do
      close(REF.u1d[i], nd.uniform_filter1d(xx, so[1], {origin = so[2], mode = "constant"}), 1e-15)
    end
    close(REF["u1d-int"], nd.uniform_filter1d(gpu.array({1, 2, 3, 4, 9, -5}, "int32"), 3), 0)
    close(REF.u2d, nd.uniform_filter(img), 1e-14)
    close(REF.u2d, nd.uniform_filter(img, 3), 1e-14)
    close(REF["u2d-sizes"], nd.uniform_filter(img, {1, 4}, {mode = "wrap"}), 1e-14)
    close(REF["u2d-uint8"], nd.uniform_filter(gpu.array(scaled(20), "uint8"), 2), 0)
  end)

  -- Windows of more than 256 sum two partial sums (van Herk's blocks, O(1) a point, where
  -- the fold is O(size)): of integers the sums are exact, so every mean is the exact sum
  -- divided once, in every mode and origin, windows longer than the line, a strided line
  it("give exact means of integers for long windows, every mode and origin", function()
    local n, t = 700, {}
    for i = 1, n do t[i] = (i * 7919) % 2003 - 1001 end
    local function at(j, mode)   -- scipy's extension of index j (0-based); nil: cval
      if j >= 0 and j < n then return j end
      if mode == "nearest" then return j < 0 and 0 or n - 1 end
      if mode == "wrap" then return j % n end
      if mode == "reflect" then j = j % (2 * n); return j < n and j or 2 * n - 1 - j end
      if mode == "mirror" then j = j % (2 * n - 2); return j < n and j or 2 * n - 2 - j end
    end
    local x = gpu.array(t, "float64")
    local grid = gpu.array({t, t, t}, "float64").T   -- (the line along dim 1, strided)
    for _, K in ipairs({257, 300, 700, 1500}) do
      for _, mode in ipairs({"reflect", "mirror", "nearest", "wrap", "constant"}) do
        for _, origin in ipairs({0, -(K // 2), (K - 1) // 2 - 1, 7}) do
          local want = {}
          for c = 0, n - 1 do
            local sum = 0
            for k = 0, K - 1 do
              local j = at(c + k - K // 2 - origin, mode)
              sum = sum + (j and t[j + 1] or 3)
            end
            want[c + 1] = sum / K
          end
          local o = {mode = mode, origin = origin, cval = 3}
          assert.are.same(want, nd.uniform_filter1d(x, K, o):totable())
          assert.are.same(want, nd.uniform_filter1d(grid, K, 1, o)[{{}, 3}]:totable())
        end
      end
    end
  end)
end)

describe("gpu.ndimage's derivative filters", function()
  it("are scipy's sobel, prewitt, laplace, gaussian_laplace and gaussian_gradient_magnitude", function()
    -- ndi.sobel(img), ndi.sobel(img, 0, mode=['constant', 'wrap'], cval=1), ndi.prewitt(img, axis=1, mode='nearest')
    close(REF.sobel, nd.sobel(img), 0)
    close(REF.sobel0, nd.sobel(img, 1, {mode = {"constant", "wrap"}, cval = 1}), 0)
    close(REF.prewitt, nd.prewitt(img, 2, {mode = "nearest"}), 0)
    close(REF["sobel-u8"], nd.sobel(gpu.array(scaled(20), "uint8")), 0)   -- wrapped, as scipy's
    close(REF.laplace, nd.laplace(img, {mode = "mirror"}), 0)
    -- ndi.gaussian_laplace(img, [1.0, 0.7]), ndi.gaussian_gradient_magnitude(img, 1.2, mode='nearest')
    close(REF.glap, nd.gaussian_laplace(img, {1.0, 0.7}), 1e-13)
    close(REF.ggm, nd.gaussian_gradient_magnitude(img, 1.2, {mode = "nearest"}), 1e-13)
    close(REF["ggm-i32"], nd.gaussian_gradient_magnitude(gpu.array(scaled(10), "int32"), 1.0), 0)
  end)

  it("keep a bool output's byte between passes, as scipy's (a first pass's -1 read back as 255)", function()
    -- scipy 1.17.1, x = [[1, 0, 1], [0, 1, 1], [1, 1, 0]] bool: ndi.sobel(x, 1) [[1 1 1] [1 1 0] [1 1 1]],
    -- ndi.prewitt(x, 0) [[1 0 1] [1 0 1] [1 0 1]]; ndi.uniform_filter(np.uint16([[256, 256, 1],
    -- [256, 2, 3]]), 2, output=bool) [[0 0 0] [0 1 1]] (a first pass's 256 is the byte 0)
    local x = gpu.array({{1, 0, 1}, {0, 1, 1}, {1, 1, 0}}, "bool")
    assert.are.same({{true, true, true}, {true, true, false}, {true, true, true}}, nd.sobel(x, 2):totable())
    assert.are.same({{true, false, true}, {true, false, true}, {true, false, true}}, nd.prewitt(x, 1):totable())
    local u = gpu.array({{256, 256, 1}, {256, 2, 3}}, "uint16")
    assert.are.same({{false, false, false}, {false, true, true}}, nd.uniform_filter(u, 2, {output = "bool"}):totable())
  end)
end)

describe("gpu.ndimage.correlate and convolve", function()
  local w2 = {{1, 0, 2}, {0, -1, 0.5}}
  it("fold N-D weights, with origins a dim", function()
    close(REF.c2d, nd.correlate(img, w2), 0)
    close(REF["c2d-origin"], nd.correlate(img, gpu.array(w2, "float64"), {origin = {0, -1}, mode = "constant", cval = 1.5}), 0)
    close(REF.v2d, nd.convolve(img, w2, {mode = "nearest"}), 0)
    close(REF["v2d-origin"], nd.convolve(img, w2, {origin = {-1, 1}, mode = "wrap"}), 0)
    local b = gpu.arange(24, "float64"):reshape(2, 3, 4)
    close(REF.c3d, nd.correlate(b, gpu.array({{{1 / 6, 1 / 6, 1 / 6}, {1 / 6, 1 / 6, 1 / 6}}}, "float64"), {mode = "mirror"}), 1e-14)
  end)

  -- before: convolve read the weights backwards from the first, where scipy's NI_Correlate
  -- sums the reversed weights in C order (the last first), so the last bits differed
  it("sum the taps in scipy's order: the weights' C order, a convolution's reversed", function()
    -- scipy 1.17.1: ndi.convolve([0.3, 1.7, 2.9, 4.1, 5.5, 7.3], [0.1, 0.7, 0.2, 0.3]),
    -- ndi.convolve([[0.3, 1.7, 2.9], [4.1, 5.5, 7.3]], [[0.1, 0.7], [0.2, 0.3]])
    local x = gpu.array({0.3, 1.7, 2.9, 4.1, 5.5, 7.3}, "float64")
    assert.are.same({1.63, 2.87, 4.51, 6.27, 8.17, 8.77}, nd.convolve(x, {0.1, 0.7, 0.2, 0.3}):totable())
    local y = gpu.array({{0.3, 1.7, 2.9}, {4.1, 5.5, 7.3}}, "float64")
    assert.are.same({{3.8499999999999996, 5.67, 7.289999999999999}, {5.749999999999999, 7.6899999999999995, 9.49}},
                    nd.convolve(y, {{0.1, 0.7}, {0.2, 0.3}}):totable())
    -- and from 0.0 (ndi.correlate(np.array([-0., -0.]), [1, 2]) [0. 0.])
    assert.are.equal("0.0", tostring(nd.correlate(gpu.array({-0.0, -0.0}, "float64"), {1, 2}):item(1)))
  end)

  it("leave out weights of 0, as scipy's footprint does (a NaN under one is not read)", function()
    local t = scaled(1)
    t[1][1] = NAN
    local x = gpu.array(t, "float64")
    close(REF["c2d-nan"], nd.correlate(x, {{0, 1}, {2, 0}}), 0)
  end)
end)

describe("gpu.ndimage's minimum, maximum and median filters", function()
  local fp = {{true, false, true}, {false, true, false}}
  it("take the least, greatest or middle value of a window or footprint", function()
    close(REF.min1d, nd.minimum_filter1d(img[{2}], 3), 0)
    close(REF.max1d, nd.maximum_filter1d(img[{2}], 2, {origin = -1, mode = "constant", cval = 100}), 0)
    close(REF.min2d, nd.minimum_filter(img, 3), 0)
    close(REF.max2d, nd.maximum_filter(img, {2, 3}, {mode = "nearest"}), 0)
    close(REF.minfp, nd.minimum_filter(img, {footprint = fp, mode = "constant", cval = -1}), 0)
    close(REF.maxfp, nd.maximum_filter(img, {footprint = gpu.array(fp, "bool"), origin = {0, 1}}), 0)
    close(REF.med, nd.median_filter(img, 3), 0)
    close(REF.med1, nd.median_filter(gpu.array({3, 1, 2, 5, 4, 0, 7}, "int32"), {size = 2}), 0)
    close(REF.medfp, nd.median_filter(img, {footprint = fp, mode = "wrap"}), 0)
  end)

  it("take any rank (rank_filter) or percentile (percentile_filter), as scipy's", function()
    -- ndi.rank_filter(img, 1, size=3), ndi.rank_filter(img, -2, footprint=fp, mode='constant', cval=20)
    close(REF.rank1, nd.rank_filter(img, 1, 3), 0)
    close(REF.rankneg, nd.rank_filter(img, -2, {footprint = fp, mode = "constant", cval = 20}), 0)
    -- ndi.percentile_filter(img, 30, size=[2, 3], mode='nearest'), (img, -25, size=2), (img, 100, size=3)
    close(REF.pct, nd.percentile_filter(img, 30, {2, 3}, {mode = "nearest"}), 0)
    close(REF.pctneg, nd.percentile_filter(img, -25, {size = 2}), 0)
    close(REF.pct100, nd.percentile_filter(img, 100, 3), 0)
  end)

  it("take a rank of 0 or count - 1 as scipy's minimum or maximum filter (over a box, a pass a dim)", function()
    -- scipy 1.17.1: x int64 [[-1, 5], [3, 7]], output=np.uint8: ndi.rank_filter(x, 0, size=2),
    -- ndi.percentile_filter(x, 0 (10, -100), size=2) [[255 5] [255 5]] (each pass stored in uint8,
    -- -1 as 255); ndi.rank_filter(x, -1, size=2), (x, 3, footprint=np.ones((2, 2))),
    -- ndi.percentile_filter(x, 100, size=2) [[255 255] [3 7]]; ndi.median_filter(x, size=(1, 2))
    -- (a count of 2: the maximum) [[255 5] [3 7]]
    local x = gpu.array({{-1, 5}, {3, 7}}, "int64")
    local u8 = {output = "uint8"}
    local least, most = {{255, 5}, {255, 5}}, {{255, 255}, {3, 7}}
    close(least, nd.rank_filter(x, 0, 2, u8), 0)
    close(least, nd.percentile_filter(x, 0, 2, u8), 0)
    close(least, nd.percentile_filter(x, 10, 2, u8), 0)
    close(least, nd.percentile_filter(x, -100, 2, u8), 0)
    close(most, nd.rank_filter(x, -1, 2, u8), 0)
    close(most, nd.rank_filter(x, 3, {footprint = {{true, true}, {true, true}}, output = "uint8"}), 0)
    close(most, nd.percentile_filter(x, 100, 2, u8), 0)
    close({{255, 5}, {3, 7}}, nd.median_filter(x, {1, 2}, u8), 0)
    -- ndi.rank_filter(x, 0, size=(2, 1), mode=['constant', 'nearest'], cval=-3) [[-3 -3] [-1 5]]
    -- (a mode a dim, as the minimum filter's); a box past 2^20 elements:
    -- ndi.rank_filter([[1., 2], [3, 4]], -1, size=(1100, 1000)) all 4
    close({{-3, -3}, {-1, 5}}, nd.rank_filter(x, 0, {2, 1}, {mode = {"constant", "nearest"}, cval = -3}), 0)
    close({{4, 4}, {4, 4}}, nd.rank_filter(gpu.array({{1, 2}, {3, 4}}, "float64"), -1, {1100, 1000}), 0)
  end)

  it("read cval in the input's type where scipy's C casts it (a footprint, a rank), as a double for a box", function()
    local u = gpu.array({5, 6, 7, 8}, "uint8")
    local c = {mode = "constant", cval = -1}
    -- ndi.minimum_filter(u, footprint=[1, 0, 1], mode='constant', cval=-1) [6 5 6 7] (-1 is 255);
    -- footprint [1, 1, 1] and size 3 (separable, a double) [255 5 6 255]
    close({6, 5, 6, 7}, nd.minimum_filter(u, {footprint = {1, 0, 1}, mode = "constant", cval = -1}), 0)
    close({255, 5, 6, 255}, nd.minimum_filter(u, {footprint = {1, 1, 1}, mode = "constant", cval = -1}), 0)
    close({255, 5, 6, 255}, nd.minimum_filter(u, 3, c), 0)
    -- ndi.maximum_filter(u, footprint=[1, 0, 1], mode='constant', cval=300) [44 7 8 44]
    close({44, 7, 8, 44}, nd.maximum_filter(u, {footprint = {1, 0, 1}, mode = "constant", cval = 300}), 0)
    -- ndi.median_filter(u[None], (1, 3), mode='constant', cval=-1) [[6 6 7 8]]; scipy 1.17's
    -- 1-D rank filter reads it as int64: ndi.median_filter(u, 3, ...) [5 6 7 7]
    close({{6, 6, 7, 8}}, nd.median_filter(u:reshape(1, 4), {1, 3}, c), 0)
    close({5, 6, 7, 7}, nd.median_filter(u, 3, c), 0)
    -- ndi.median_filter([[1, 2], [3, 4]] int32, 2, mode='constant', cval=2.5, output=float64) [[2 2] [2 3]]
    close({{2, 2}, {2, 3}}, nd.median_filter(gpu.array({{1, 2}, {3, 4}}, "int32"), 2,
                                             {mode = "constant", cval = 2.5, output = "float64"}), 0)
    -- ndi.rank_filter(u, -1, 3, mode='constant', cval=300) (a maximum filter: a double) [44 7 8 44]
    close({44, 7, 8, 44}, nd.rank_filter(u, -1, 3, {mode = "constant", cval = 300}), 0)
  end)

  -- Windows of more than 64 taps along a line take van Herk and Gil-Werman's way (O(1) a
  -- point; the fold, O(K), took 15 s for a window of 10,001 over 10^6 values on the CPU
  -- backend): the fold's values bit for bit, NaN never taken (a window of NaN alone gives
  -- inf), of 0.0 and -0.0 the first in the window, every mode, origins, both dims, views
  it("give the fold's values for long windows: NaN skipped, the first of 0.0 and -0.0", function()
    local n = 150
    local t = {}
    for i = 1, n do t[i] = ((i * 37) % 101 - 50) / 8 end
    for i = 10, 80 do t[i] = 0 / 0 end   -- windows of NaN alone too
    for i = 90, 92 do t[i] = 0.0 end
    for i = 93, 95 do t[i] = -0.0 end
    t[120], t[121] = -0.0, 0.0
    local function at(j, mode)   -- scipy's extension of index j (0-based); nil: cval
      if j >= 0 and j < n then return j end
      if mode == "nearest" then return j < 0 and 0 or n - 1 end
      if mode == "wrap" then return j % n end
      if mode == "reflect" then j = j % (2 * n); return j < n and j or 2 * n - 1 - j end
      if mode == "mirror" then j = j % (2 * n - 2); return j < n and j or 2 * n - 2 - j end
      return nil
    end
    local function ref(K, origin, mode, cval, less)
      local r = {}
      for c = 0, n - 1 do
        local acc = less and math.huge or -math.huge
        for k = 0, K - 1 do
          local j = at(c + k - K // 2 - origin, mode)
          local x = j and t[j + 1] or cval
          if (less and x < acc) or (not less and x > acc) then acc = x end
        end
        r[c + 1] = tostring(acc)
      end
      return r
    end
    local function shown(a) local r = {}; for i, v in ipairs(a:totable()) do r[i] = tostring(v) end; return r end
    local x = gpu.array(t, "float64")
    local grid = gpu.array({t, t}, "float64").T   -- (a view: the line along dim 1, strided)
    for _, K in ipairs({65, 101, 149, 150, 400}) do
      for _, mode in ipairs({"reflect", "mirror", "nearest", "wrap", "constant"}) do
        for _, origin in ipairs({0, -(K // 2), (K - 1) // 2 - 1}) do
          local o = {mode = mode, origin = origin, cval = mode == "constant" and -0.0 or nil}
          assert.are.same(ref(K, origin, mode, -0.0, true), shown(nd.minimum_filter1d(x, K, o)))
          assert.are.same(ref(K, origin, mode, -0.0, false), shown(nd.maximum_filter1d(x, K, o)))
          assert.are.same(ref(K, origin, mode, -0.0, true), shown(nd.minimum_filter1d(grid, K, 1, o)[{{}, 2}]))
        end
      end
    end
    -- (a cval of -0.0 was read as 0.0, in every filter: scipy keeps its sign)
    local m = gpu.full(4, 5.75, "float64")
    local c0 = {mode = "constant", cval = -0.0}
    assert.are.same({"-0.0", "5.75", "5.75", "-0.0"}, shown(nd.minimum_filter1d(m, 3, c0)))
    assert.are.same({"-0.0", "5.75", "5.75", "-0.0"}, shown(nd.grey_erosion(m, 3, c0)))
    assert.are.same({"-0.0", "-0.0", "5.75", "5.75"}, shown(nd.shift(m, 2, {mode = "constant", cval = -0.0, order = 1})))
    -- a NaN cval is never taken either; an int32 output stores what the fold gives
    local o = {mode = "constant", cval = 0 / 0}
    assert.are.same(ref(99, 0, "constant", 0 / 0, true), shown(nd.minimum_filter1d(x, 99, o)))
    local ints = gpu.arange(200, "int32") % 17   -- (each window holds 0 and 16)
    local lo, hi = nd.minimum_filter1d(ints, 65, {output = "int16"}), nd.maximum_filter1d(ints, 65, {output = "int16"})
    local zeros, sixteens = {}, {}
    for i = 1, 200 do zeros[i], sixteens[i] = 0, 16 end
    assert.are.same({"int16", zeros, sixteens}, {lo.dtype, lo:totable(), hi:totable()})
    -- A block of more than 128 extended values is folded in pieces of 128, each piece
    -- carrying what the pieces before (after) it hold: runs of NaN and of tied 0.0 / -0.0
    -- across the pieces' edges
    -- (values of one sign and zeros of both: every window's extreme is a zero, which one
    -- the first in the window)
    n = 700
    for i = 1, n do t[i] = (i * 53) % 97 + 1 end
    for i = 100, 300 do t[i] = 0 / 0 end
    for i = 1, n, 29 do t[i] = (i // 29) % 2 == 0 and 0.0 or -0.0 end
    for i = 380, 400 do t[i] = i % 2 == 0 and 0.0 or -0.0 end
    for _, K in ipairs({129, 256, 257, 300, 701}) do
      for _, mode in ipairs({"reflect", "wrap", "constant"}) do
        for _, origin in ipairs({0, -(K // 2), 5}) do
          local o = {mode = mode, origin = origin, cval = 1.0}
          x = gpu.array(t, "float64")
          assert.are.same(ref(K, origin, mode, 1.0, true), shown(nd.minimum_filter1d(x, K, o)))
          for i = 1, n do t[i] = -t[i] end
          x, o.cval = gpu.array(t, "float64"), -1.0
          assert.are.same(ref(K, origin, mode, -1.0, false), shown(nd.maximum_filter1d(x, K, o)))
          for i = 1, n do t[i] = -t[i] end
        end
      end
    end
  end)
end)

-- before: a filter that makes no pass stored the input by scipy's C cast (through a double,
-- an int32 and its low byte), where scipy copies it (output[...] = input[...]) as NumPy casts
describe("gpu.ndimage's filters that make no pass", function()
  it("copy the input cast as NumPy casts it, as scipy's (integers wrapped and exact, bool != 0)", function()
    -- scipy 1.17.1, xf = [0.5, 256, nan, -0.25, 3], xi = np.int64([3e9, 2**53 + 1, -1, 256, 7]):
    -- ndi.gaussian_filter(xf, 0, output=bool) all True (the C cast: [0 0 0 0 1]), as
    -- uniform_filter, minimum_filter, median_filter ... of size 1 and grey_erosion's
    local xf = gpu.array({0.5, 256, NAN, -0.25, 3}, "float64")
    local xi = gpu.array({3000000000, (1 << 53) + 1, -1, 256, 7}, "int64")
    local yes = {true, true, true, true, true}
    assert.are.same(yes, nd.gaussian_filter(xf, 0, {output = "bool"}):totable())
    assert.are.same(yes, nd.uniform_filter(xf, 1, {output = "bool"}):totable())
    assert.are.same(yes, nd.maximum_filter(xf, {footprint = {true}, output = "bool"}):totable())
    assert.are.same(yes, nd.median_filter(xi, 1, {output = "bool"}):totable())
    assert.are.same(yes, nd.grey_erosion(xf, 1, {output = "bool"}):totable())
    -- ndi.uniform_filter(xi, 1, output=np.int32) [-1294967296 1 -1 256 7] (wrapped; the C
    -- cast: INT_MIN for 3e9 and 2**53 + 1); ndi.minimum_filter(xi, 1) xi exactly (not 2**53)
    local wrapped = {-1294967296, 1, -1, 256, 7}
    assert.are.same(wrapped, nd.uniform_filter(xi, 1, {output = "int32"}):totable())
    assert.are.same(wrapped, nd.gaussian_filter(xi, 1, {dims = {}, output = "int32"}):totable())
    assert.are.same({3000000000, (1 << 53) + 1, -1, 256, 7}, nd.minimum_filter(xi, 1):totable())
    -- ndi.percentile_filter(xi.astype(np.uint32), 20, footprint=[1], output=np.int16) [24064 1 -1 256 7]
    assert.are.same({24064, 1, -1, 256, 7},
                    nd.percentile_filter(xi:astype("uint32"), 20, {footprint = {1}, output = "int16"}):totable())
    -- the derivatives of sigma 0 copy the same way, then add (square, root) in the output's
    -- dtype: ndi.gaussian_laplace(xi2, 0, output=np.int32) [[1705032704 2] [-2 512]],
    -- ndi.gaussian_gradient_magnitude(xi, 0, output=np.int32) [-2147483648 1 1 256 7]
    local xi2 = gpu.array({{3000000000, (1 << 53) + 1}, {-1, 256}}, "int64")
    assert.are.same({{1705032704, 2}, {-2, 512}}, nd.gaussian_laplace(xi2, 0, {output = "int32"}):totable())
    assert.are.same({-2147483648, 1, 1, 256, 7}, nd.gaussian_gradient_magnitude(xi, 0, {output = "int32"}):totable())
    -- a pass of one tap still casts as scipy's C: ndi.correlate1d(xf, [1.0], output=bool) [0 0 0 0 1]
    assert.are.same({false, false, false, false, true}, nd.correlate1d(xf, {1.0}, {output = "bool"}):totable())
  end)
end)

describe("gpu.ndimage's errors", function()
  -- before: "kernel 'ndi_line<double, double>' argument 1 (in) is on device 1 ..."
  it("#multi name the function and the argument on another device", function()
    local b = gpu.with_device(1, gpu.arange, 0, 6, 1, "float64")
    local a = gpu.arange(0, 6, 1, "float64")
    assert.matches("gpu.ndimage.gaussian_filter: input on device 1, and device 0 is current: run it with gpu.with_device(1, f), or copy it here with a:to(0)",
                   S.errof(nd.gaussian_filter, b, 1), 1, true)
    assert.matches("gpu.ndimage.correlate1d: weights on device 1", S.errof(nd.correlate1d, a, b), 1, true)
    assert.matches("gpu.ndimage.uniform_filter: output on device 1, and device 0 is current: run it with gpu.with_device(1, f)",
                   S.errof(nd.uniform_filter, a, 3, {output = b}), 1, true)
    assert.matches("gpu.ndimage.median_filter: input on device 1", S.errof(nd.median_filter, b, 3), 1, true)
  end)

  local x = gpu.arange(5, "float64")
  local function err(pattern, f, ...)
    local ok, e = pcall(f, ...)
    assert.is_false(ok)
    assert.matches(pattern, tostring(e), 1, true)
  end
  it("name the function and what was wrong", function()
    err("gpu.ndimage.correlate1d: input must be a device array, got table", nd.correlate1d, {1, 2}, {1})
    err("gpu.ndimage.correlate1d: mode must be 'reflect', 'constant', 'nearest', 'mirror' or 'wrap' (or 'grid-mirror', 'grid-constant', 'grid-wrap'), got 'foo'",
        nd.correlate1d, x, {1}, {mode = "foo"})
    err("gpu.ndimage.correlate1d: weights must not be empty (no filter weights given)", nd.correlate1d, x, {})
    err("gpu.ndimage.convolve1d: weights must be a table of numbers or a 1-D device array, got string", nd.convolve1d, x, "w")
    err("gpu.ndimage.correlate1d: dim 2 is out of range for 1-D arrays", nd.correlate1d, x, {1}, 2)
    err("gpu.ndimage.correlate1d: input is 0-D: it has no dim to filter along", nd.correlate1d, gpu.full({}, 1, "float64"), {1})
    err("gpu.ndimage.correlate1d: origin must lie in -(size // 2) .. (size - 1) // 2 = -1 .. 1 for a filter of size 3, got 2",
        nd.correlate1d, x, {1, 2, 3}, {origin = 2})
    err("gpu.ndimage.correlate1d: unknown option 'axis' (it takes mode, cval, origin, output)", nd.correlate1d, x, {1}, {axis = 1})
    err("gpu.ndimage.correlate1d: input is complex64: complex arrays are not supported", nd.correlate1d, gpu.zeros(3, "complex64"), {1})
    err("gpu.ndimage.correlate1d: output must have input's shape {5}, got {4}", nd.correlate1d, x, {1}, {output = gpu.zeros(4)})
    err("gpu.ndimage.correlate1d: output must be a dtype name or a device array, got 'float33'", nd.correlate1d, x, {1}, {output = "float33"})
    err("gpu.ndimage.gaussian_filter1d: sigma must be non-negative, got -1", nd.gaussian_filter1d, x, -1)
    err("gpu.ndimage.gaussian_filter1d: sigma must be positive, got 0", nd.gaussian_filter1d, x, 0)
    err("gpu.ndimage.gaussian_filter1d: order must be 0, 1, 2 or 3, got 4", nd.gaussian_filter1d, x, 1, {order = 4})
    err("gpu.ndimage.gaussian_filter: sigma must be one value or a table of 1 (one a dim), got a table of 2", nd.gaussian_filter, x, {1, 2})
    err("gpu.ndimage.uniform_filter1d: size must be a positive integer, got 0", nd.uniform_filter1d, x, 0)
    err("gpu.ndimage.correlate: weights must have input's number of dims (1), got 2", nd.correlate, x, {{1}})
    err("gpu.ndimage.minimum_filter: give a size or a footprint", nd.minimum_filter, x)
    err("gpu.ndimage.convolve: origin[2] must lie in -(size // 2) .. (size - 1) // 2 = -1 .. 0 for a filter of size 2, got -2",
        nd.convolve, gpu.zeros({3, 3}, "float64"), {{1, 2}}, {origin = {0, -2}})
    -- the caller's origin, not the mirrored one a convolution uses (it said got -2, got 2)
    err("gpu.ndimage.convolve1d: origin must lie in -(size // 2) .. (size - 1) // 2 = -1 .. 1 for a filter of size 3, got 2",
        nd.convolve1d, x, {1, 2, 3}, {origin = 2})
    err("gpu.ndimage.convolve: origin must lie in -(size // 2) .. (size - 1) // 2 = -2 .. 1 for a filter of size 4, got -3",
        nd.convolve, x, {1, 2, 3, 4}, {origin = -3})
    err("gpu.ndimage.maximum_filter: footprint must have input's number of dims (1), got 2", nd.maximum_filter, x, {footprint = {{true}}})
    err("gpu.ndimage.rank_filter: rank must lie in -9 .. 8 for a footprint of 9 elements, got 9", nd.rank_filter, img, 9, 3)
    err("gpu.ndimage.percentile_filter: percentile must lie in -100 .. 100, got 101", nd.percentile_filter, img, 101, 3)
    err("gpu.ndimage.median_filter: footprint has no true element", nd.median_filter, x, {footprint = {false, false}})
    -- a hole in a list of one value a dim was its default (order {nil, 1}: 0, mode {nil, "wrap"}:
    -- reflect), and one in dims dropped what followed it ({1, nil, 2} filtered dim 1 alone)
    local sq = gpu.zeros({3, 3}, "float64")
    err("gpu.ndimage.gaussian_filter: order[1] is nil", nd.gaussian_filter, sq, 1, {order = {nil, 1}})
    err("gpu.ndimage.gaussian_filter: mode[1] is nil", nd.gaussian_filter, sq, 1, {mode = {nil, "wrap"}})
    err("gpu.ndimage.gaussian_filter: radius[1] is nil", nd.gaussian_filter, sq, 1, {radius = {nil, 1}})
    err("gpu.ndimage.gaussian_filter: dims[2] is nil", nd.gaussian_filter, gpu.zeros({3, 3, 3}, "float64"), 1, {dims = {1, nil, 3}})
    err("gpu.ndimage.uniform_filter: size[1] is nil", nd.uniform_filter, sq, {nil, 3})
    -- an argument beyond the parameters is refused, as gpu.cross's (it was dropped)
    err("gpu.ndimage.sobel takes 3 arguments, got a number as argument 4 (not one it takes)", nd.sobel, x, 1, {}, 5)
    err("gpu.ndimage.gaussian_filter takes 3 arguments, got a table as argument 4 (options go in argument 3)", nd.gaussian_filter, x, 1, nil, {})
    local f = gpu.arange(3, "float64")
    f:free()
    err("attempt to use a freed array", nd.uniform_filter, f)
    err("attempt to use a freed array", nd.correlate1d, x, f)
  end)
  -- before: each wrote through a gpu.broadcast_to view into the array under it (a module's
  -- launch checks no writes); the interpolation functions had the same hole
  it("refuse an output that cannot be written, naming the function", function()
    local x = gpu.zeros({4}, "float64")
    local ro = gpu.broadcast_to(x, {4})
    local src = gpu.arange(0, 4, 1, "float64")
    local why = "output is an expanded view (a stride of 0) or a view of one"
    for api, f in pairs({uniform_filter = function() return nd.uniform_filter(src, 3, {output = ro}) end,
                         gaussian_filter = function() return nd.gaussian_filter(src, 1, {output = ro}) end,
                         median_filter = function() return nd.median_filter(src, 3, {output = ro}) end,
                         correlate1d = function() return nd.correlate1d(src, {1, 2, 1}, {output = ro}) end,
                         grey_erosion = function() return nd.grey_erosion(src, {size = 3, output = ro}) end,
                         sobel = function() return nd.sobel(src, 1, {output = ro}) end}) do
      assert.matches("gpu.ndimage." .. api .. ": " .. why, S.errof(f), 1, true)
    end
    assert.are.same({0, 0, 0, 0}, x:totable())
  end)
end)
